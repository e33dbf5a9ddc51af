"""Composition root: wires one ProjectRuntime per open project."""
