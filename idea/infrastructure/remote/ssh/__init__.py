"""The SSH transport of ``remote/`` (DESIGN.md §16), on asyncssh: the connection to a host
(``connection``), its command and forwarding channels (``channels``), what a host needs and
``idea hosts check`` (``check``), the ``Connector`` it gives ``HostLink`` (``host_transport``).
Nothing else in ``remote/`` imports it, and nothing outside it imports asyncssh."""
