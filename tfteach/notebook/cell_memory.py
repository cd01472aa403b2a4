"""Per-cell device memory (issue 6, the memory half): placeholder until that branch
merges. `%load_ext tfteach` calls `register` / `unregister`; this stub does nothing, so
the graph half can be loaded and tested on its own."""

__all__ = ["register", "unregister"]


def register(ipython):
    pass


def unregister(ipython):
    pass
