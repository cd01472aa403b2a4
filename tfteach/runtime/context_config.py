"""The process's default options, kept as TensorFlow's eager context keeps them:
`tf.config.threading` and `tf.config.optimizer` set them, and they apply to

- every Session made without a `config` (TF 1.15's `Session.__init__` does
  `config = context.context().config`), so a graph built later runs with them;
- every `tf.function`'s graph (its Session is made with them; a change made after a
  function ran applies from its next call, as TF re-instantiates functions);
- eager ops: `intra_op_parallelism_threads=1` caps BLAS at one thread when the first
  eager op runs (eager ops make no Session; BLAS's threads are tfteach's intra-op pool).

Nothing is built until something is set: a tiny run imports no protobuf
(docs/engine.md, "Lazy imports"). The thread counts, as TF's, cannot change once eager
execution has run its first op (TF raises RuntimeError: "Intra op parallelism cannot be
modified after initialization."); before that, and in graph mode, they can.
"""
import threading

__all__ = ["session_config", "intra_op_threads", "set_intra_op_threads",
           "inter_op_threads", "set_inter_op_threads", "optimizer_options",
           "set_optimizer_options", "optimizer_jit", "set_optimizer_jit", "version",
           "eager_initialized", "mark_eager_initialized"]

# The RewriterConfig fields tf.config.optimizer sets, in the order TensorFlow's context
# reads them back: Toggles (True: ON, False: OFF) and plain bools.
FIELDS = (("layout_optimizer", "toggle"), ("constant_folding", "toggle"),
          ("shape_optimization", "toggle"), ("remapping", "toggle"),
          ("arithmetic_optimization", "toggle"), ("dependency_optimization", "toggle"),
          ("loop_optimization", "toggle"), ("function_optimization", "toggle"),
          ("debug_stripper", "toggle"), ("disable_model_pruning", "bool"),
          ("scoped_allocator_optimization", "toggle"), ("pin_to_host_optimization", "toggle"),
          ("implementation_selector", "toggle"), ("auto_mixed_precision", "toggle"),
          ("disable_meta_optimizer", "bool"))

_lock = threading.Lock()
_threads = {"Intra": 0, "Inter": 0}     # op parallelism; 0: the system picks, as in TF
_options = {}                # what set_experimental_options was given (unknown keys too)
_jit = False
_version = 0                 # bumped by every change: functions' Sessions follow it
_eager_initialized = False


def version():
    """A number that changes whenever an option does."""
    return _version


def _changed():
    global _version
    _version += 1


def session_config():
    """The ConfigProto a Session made without one gets, or None when nothing was set
    (the Session's defaults, and no protobuf imported)."""
    if not (_threads["Intra"] or _threads["Inter"] or _options or _jit):
        return None
    return _build(_threads["Intra"], _threads["Inter"], _options, _jit)


def _build(intra, inter, options, jit):
    from tfteach.runtime.config import ConfigProto, OptimizerOptions, RewriterConfig
    config = ConfigProto(intra_op_parallelism_threads=intra,
                         inter_op_parallelism_threads=inter)
    rewrite = config.graph_options.rewrite_options
    for name, kind in FIELDS:
        value = options.get(name)
        if value is not None:
            if kind == "toggle":
                value = RewriterConfig.ON if value else RewriterConfig.OFF
            setattr(rewrite, name, value)
    if options.get("min_graph_nodes") is not None:
        rewrite.min_graph_nodes = options["min_graph_nodes"]
    if jit:
        config.graph_options.optimizer_options.global_jit_level = OptimizerOptions.ON_1
    return config


# -- threads ----------------------------------------------------------------------------
def _checked_count(num_threads):
    # protobuf's own check of an int32 field, so a wrong type gets TF's words
    from tfteach.runtime.config import ConfigProto
    ConfigProto(intra_op_parallelism_threads=num_threads)
    return int(num_threads)


def intra_op_threads():
    return _threads["Intra"]


def set_intra_op_threads(num_threads):
    _set_threads("Intra", num_threads)


def inter_op_threads():
    return _threads["Inter"]


def set_inter_op_threads(num_threads):
    _set_threads("Inter", num_threads)


def _set_threads(kind, num_threads):
    num_threads = _checked_count(num_threads)
    with _lock:
        if num_threads == _threads[kind]:
            return                  # the same count: allowed even after initialization
        if _eager_initialized:
            raise RuntimeError("%s op parallelism cannot be modified after initialization."
                               % kind)
        _threads[kind] = num_threads
        _changed()


def eager_initialized():
    return _eager_initialized


def mark_eager_initialized():
    """The first eager op is running: the thread counts are fixed from now on, and an
    intra-op count of 1 makes BLAS one-threaded (eager ops have no Session to do it)."""
    global _eager_initialized
    with _lock:
        if _eager_initialized:
            return
        _eager_initialized = True
        intra = _threads["Intra"]
    if intra == 1:
        from tfteach.kernels.cpu import two_workers
        two_workers.cap_blas_threads(1)


# -- the graph optimizer --------------------------------------------------------------------
def optimizer_options():
    """The options as TensorFlow reads them back from its config: each toggle that is
    set (True for ON), the two bools always, min_graph_nodes when not 0; keys it does
    not know are kept (set_optimizer_options) but not shown, as in TF."""
    found = {}
    for name, kind in FIELDS:
        value = _options.get(name)
        if kind == "bool" or value is not None:     # the bools are always there
            found[name] = bool(value)
    nodes = _options.get("min_graph_nodes")
    if nodes:
        found["min_graph_nodes"] = nodes
    return found


def set_optimizer_options(options):
    """Merges `options` into the process's optimizer options: anything `dict.update`
    takes (a dict, or (key, value) pairs), as TF's context merges them, with Python's
    own TypeError/ValueError otherwise. A value protobuf refuses (a min_graph_nodes that
    is not an int) is refused now, and nothing changes (TF refuses it when it next reads
    the options)."""
    options = dict(options)
    with _lock:
        merged = dict(_options)
        merged.update(options)
        _build(_threads["Intra"], _threads["Inter"], merged, _jit)     # refuses, or:
        _options.update(options)
        _changed()


def optimizer_jit():
    return _jit


def set_optimizer_jit(enabled):
    global _jit
    with _lock:
        _jit = bool(enabled)
        _changed()
