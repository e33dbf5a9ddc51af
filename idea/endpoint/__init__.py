"""Leaf shared by the bridge and the app: endpoint naming, loopback framing, JSON-RPC constants."""
