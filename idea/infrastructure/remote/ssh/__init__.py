"""The SSH transport of ``remote/`` (DESIGN.md §16), on asyncssh: the connection to a host
(``link``), the ``Connector`` it gives ``HostLink`` (``host_transport``), ``idea hosts check``
(``check``). Nothing else in ``remote/`` imports it, and nothing outside it imports asyncssh."""
