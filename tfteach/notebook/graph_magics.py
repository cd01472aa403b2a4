"""Placeholder for `%%tfgraph` (the graph half of issue 6, built on another branch).

The extension's loader (`tfteach/notebook/__init__.py`) registers this module and
`cell_memory`; until the graph views are merged, these hooks do nothing.
"""

__all__ = ["register", "unregister"]


def register(ipython):
    """No-op until the graph magics are merged."""


def unregister(ipython):
    """No-op until the graph magics are merged."""
