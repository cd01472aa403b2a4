"""`%load_ext tfteach`: the classroom's view of the engine (issue 6, docs/notebook.md).

Two independent parts register themselves on the IPython shell:
- `graph_magics`: `%%tfgraph` / `%tfgraph` — the graph a cell built and which nodes each
  `Session.run` really executed (built from the graph export, `graph_export.py`);
- `cell_memory`: per-cell device-memory sampling and release, `%tfdevices`,
  `%tfmemory`, `%tfrelease`, and the teaching form of errors;
- `scalars_magic`: `%tfscalars LOGDIR [TAG...]`, TensorBoard's scalar charts inline.
This layer reads the engine only through public objects (DESIGN.md): the graph, the
`RunMetadata` step stats and each device's memory statistics.
"""

__all__ = ["load_ipython_extension", "unload_ipython_extension", "show_images"]


def show_images(images, titles=None, cols=4, size=3.0, rescale=False, show=True):
    """Images drawn inline in a grid (matplotlib); see image_grid.show_images (None, or
    the Figure with show=False)."""
    from tfteach.notebook.image_grid import show_images as show_grid
    return show_grid(images, titles=titles, cols=cols, size=size, rescale=rescale,
                     show=show)


def load_ipython_extension(ipython):
    from tfteach.notebook import cell_memory, graph_magics
    graph_magics.register(ipython)
    cell_memory.register(ipython)
    from tfteach.notebook import scalars_magic      # %tfscalars (docs/tensorboard.md)
    scalars_magic.register(ipython)


def unload_ipython_extension(ipython):
    from tfteach.notebook import cell_memory, graph_magics
    graph_magics.unregister(ipython)
    cell_memory.unregister(ipython)
    from tfteach.notebook import scalars_magic
    scalars_magic.unregister(ipython)
