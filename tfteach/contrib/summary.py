"""`tf.contrib.summary` (TF 1.15): summaries that write themselves, eagerly or in a graph.

Note 001's eager section lists it: under eager execution TF 1's `tf.summary` ops (which
make serialized Summaries for a FileWriter) do not fit, so summaries go straight to a
default writer, with a step:

    writer = tf.contrib.summary.create_file_writer("logs")
    with writer.as_default(), tf.contrib.summary.always_record_summaries():
        tf.contrib.summary.scalar("loss", loss)        # step: the global step

Nothing is recorded unless a `record_if` is on: `always_record_summaries()`,
`record_summaries_every_n_global_steps(n)` (when global_step % n == 0), or
`never_record_summaries()`. Outside them a summary call returns False, as TF 1.15's.

In a graph the calls build TF 1.15's ops (summary/writer_ops.py): run
`tf.contrib.summary.summary_writer_initializer_op()` (or `initialize(session=sess)`) once
in a Session, then the ops of `all_summary_ops()` write each time they run. Each Session
has its own writer, closed with it. Eagerly the writer is made at once and each call
writes; two writers of one logdir are one writer (TF shares a writer's resource by its
name, `logdir:<logdir>`).

The values are TF 1's summaries' (`simple_value`, the histogram's buckets, PNG images,
WAV audio), not TF 2 `tf.summary`'s tensors with plugin data, in event files named
`events.out.tfevents.<time>.<host>.v2`. The default writer and the recording condition
belong to the thread, as TF's context keeps them; they are not shared with the TF 2
`tf.summary` of `tfteach.v2` (in TF they are the same ones).
"""
import atexit
import contextlib
import logging
import os
import threading

import numpy as np

from tfteach.framework import convert, dtypes, eager_mode
from tfteach.framework import graph as graph_lib
from tfteach.framework.registry import get_op_def
from tfteach.summary import summary_ops, writer_ops

__all__ = ["create_file_writer", "create_summary_file_writer", "create_db_writer",
           "SummaryWriter", "always_record_summaries", "never_record_summaries",
           "record_summaries_every_n_global_steps", "should_record_summaries",
           "scalar", "histogram", "image", "audio", "generic", "graph", "import_event",
           "flush", "all_summary_ops", "summary_writer_initializer_op", "initialize",
           "eval_dir"]

# The graph collections TF 1.15 keeps them in.
SUMMARY_COLLECTION = "_SUMMARY_V2"             # ops.GraphKeys._SUMMARY_COLLECTION
WRITER_INIT_COLLECTION = "_SUMMARY_WRITER_V2"
_BAD_COLOR = [255, 0, 0, 255]                  # TF's default: opaque red

_EAGER_WRITERS = {}                            # shared name -> WriterResource (eager mode)
_EAGER_LOCK = threading.Lock()


@atexit.register
def _flush_eager_writers():
    """What eager writers still hold is written when Python exits, as TF's writer
    resources are flushed when deleted."""
    with _EAGER_LOCK:
        writers = list(_EAGER_WRITERS.values())
    for writer in writers:
        writer.flush()


class _ThreadState(threading.local):
    writer = None                # the default SummaryWriter
    recording = None             # record_if's condition (None: not set, records nothing)


_STATE = _ThreadState()


def _eager():
    return eager_mode.executing_eagerly()


def _constant(value, dtype=None):
    from tfteach.ops.constant_op import constant
    return constant(value, dtype=dtype)


def _no_op():
    from tfteach.ops.dependency_ops import no_op
    return None if _eager() else no_op()


def _apply(op_type, inputs, attrs=None, name=None, control_inputs=()):
    from tfteach.ops.op_builder import apply_op
    return apply_op(op_type, inputs, attrs or {}, name=name, control_inputs=control_inputs)


class SummaryWriter:
    """A summary writer: `as_default()`, `set_as_default()`, `init()`, `flush()`,
    `close()`. In a graph it holds the writer's handle tensor and its initializer op;
    eagerly, the writer itself."""

    def __init__(self, shared_name, make_writer, init_inputs):
        self._shared_name = shared_name
        self._init_inputs = init_inputs
        if _eager():
            with _EAGER_LOCK:
                self._writer = _EAGER_WRITERS.get(shared_name)
                if self._writer is None:
                    self._writer = _EAGER_WRITERS[shared_name] = make_writer()
            self._resource = writer_ops.WriterHandle(shared_name)
            self._init_op = None
        else:
            self._writer = None
            graph = graph_lib.get_default_graph()
            with graph.device("cpu:0"):
                # TF 1.15's order and names: the settings' constants (Const, Const_1,
                # Const_2), the handle, its initializer (the logdir converted in its scope).
                self._init_inputs = (init_inputs[0],) + tuple(
                    convert.convert_to_tensor(v, dtype=d) for v, d in zip(
                        init_inputs[1:], (dtypes.int32, dtypes.int32, dtypes.string)))
                self._resource = _apply("SummaryWriter", [], {"shared_name": shared_name,
                                                              "container": ""})
            self._init_op = self.init()
            graph.add_to_collection(WRITER_INIT_COLLECTION, self._init_op)

    def set_as_default(self):
        """This writer is the thread's default from now on."""
        _STATE.writer = self

    @contextlib.contextmanager
    def as_default(self):
        """This writer is the default inside the `with`; flushed on leaving it (in a graph
        that makes a flush op nobody runs, as in TF 1.15)."""
        old = _STATE.writer
        try:
            _STATE.writer = self
            yield self
            self.flush()
        finally:
            _STATE.writer = old

    def init(self):
        """The op creating this writer in a Session (a new op each call, as TF's legacy
        writer); eagerly the writer exists already."""
        if _eager():
            return None
        graph = graph_lib.get_default_graph()
        with graph.device("cpu:0"), graph.name_scope("CreateSummaryFileWriter") as scope:
            logdir = convert.convert_to_tensor(self._init_inputs[0], dtype=dtypes.string,
                                               name="logdir")
            return _apply("CreateSummaryFileWriter",
                          [self._resource, logdir] + list(self._init_inputs[1:]),
                          name=scope)

    def flush(self):
        return flush(writer=self)

    def close(self):
        """Flushes and closes the writer (in a graph: the op doing it)."""
        if _eager():
            with _EAGER_LOCK:
                if _EAGER_WRITERS.get(self._shared_name) is self._writer:
                    del _EAGER_WRITERS[self._shared_name]
            self._writer.close()
            return None
        graph = graph_lib.get_default_graph()
        with graph.control_dependencies([self.flush()]), graph.device("cpu:0"):
            return _apply("CloseSummaryWriter", [self._resource])


class _NoopWriter:
    """`create_file_writer(None)`: a writer that writes nothing."""

    def set_as_default(self):
        pass

    @contextlib.contextmanager
    def as_default(self):
        yield

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A writer of event files into `logdir` (None: one that writes nothing). Defaults
    as TF 1.15's: 10 events queued, flushed every 120,000 ms, suffix `.v2`; `name`, the
    writer's shared name, `logdir:<logdir>`."""
    if logdir is None:
        return _NoopWriter()
    logdir = str(logdir)
    inputs = (logdir, 10 if max_queue is None else max_queue,
              2 * 60 * 1000 if flush_millis is None else flush_millis,
              ".v2" if filename_suffix is None else filename_suffix)
    return SummaryWriter("logdir:" + logdir if name is None else name,
                         lambda: writer_ops.WriterResource(*[_python(v) for v in inputs]),
                         inputs)


def create_summary_file_writer(*args, **kwargs):
    """The old name of `create_file_writer`."""
    logging.getLogger("tensorflow").warning(
        "Deprecation Warning: create_summary_file_writer was renamed to create_file_writer")
    return create_file_writer(*args, **kwargs)


def create_db_writer(db_uri, experiment_name=None, run_name=None, user_name=None,
                     name=None):
    raise NotImplementedError(
        "tf.contrib.summary.create_db_writer (summaries into an SQLite database) is not in "
        "tfteach; create_file_writer writes event files that TensorBoard reads.")


def _python(value):
    value = value.numpy() if hasattr(value, "numpy") else value
    value = np.asarray(value).item() if isinstance(value, np.ndarray) else value
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value):
    """A serialized proto given eagerly (bytes, or a string tensor of them), as bytes."""
    value = value.numpy() if hasattr(value, "numpy") else value
    return np.asarray(value, dtype=object).item() if isinstance(value, np.ndarray) else value


# -- recording ---------------------------------------------------------------------------------
@contextlib.contextmanager
def record_if(condition):
    """Summaries record while `condition` (a bool, a bool tensor, or a callable giving
    one) is true."""
    old = _STATE.recording
    try:
        _STATE.recording = condition
        yield
    finally:
        _STATE.recording = old


def always_record_summaries():
    return record_if(True)


def never_record_summaries():
    return record_if(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Record when global_step % n == 0 (eagerly: the step when the summary is written)."""
    from tfteach.ops import comparison_ops
    from tfteach.train import training_util
    if global_step is None:
        global_step = training_util.get_or_create_global_step()

    def should():
        return comparison_ops.equal(global_step % n, 0)
    return record_if(should if _eager() else should())


def _condition():
    condition = _STATE.recording
    if callable(condition):
        condition = condition()
    return False if condition is None else condition


def should_record_summaries():
    """A bool tensor: whether a summary written now records."""
    from tfteach.ops import comparison_ops
    return comparison_ops.logical_and(True, _condition())


def _constant_value(condition):
    """The condition as a Python bool where it is known now, else None (a graph tensor)."""
    if isinstance(condition, (bool, np.bool_)):
        return bool(condition)
    if hasattr(condition, "numpy"):
        return bool(condition.numpy())
    if isinstance(condition, (int, np.integer, np.ndarray)):
        return bool(condition)
    from tfteach.ops.op_builder import constant_value
    value = constant_value(condition)
    return None if value is None else bool(value)


# -- the summaries -----------------------------------------------------------------------------
def _choose_step(step):
    """The step of a summary: `step`, else the global step (made if there is none); in a
    graph an int64 tensor, eagerly a value."""
    from tfteach.train import training_util
    if step is None:
        step = training_util.get_or_create_global_step()
    if _eager():
        return step
    return convert.convert_to_tensor(step, dtype=dtypes.int64)


def _write(op_type, tag, scope, step, values, attrs):
    """One write op (in a graph), or its kernel run now on the default writer (eagerly)."""
    writer = _STATE.writer
    if not _eager():
        # Inside the summary's scope, as TF's op wrapper: Python values become constants
        # named after the op's inputs (`loss/tag`), the summarized tensor goes through
        # an Identity (TF's "move the tensor to the CPU").
        from tfteach.ops.constant_op import identity
        step = _choose_step(step)
        args = dict(zip(_INPUT_NAMES[op_type], values))
        for arg in _SUMMARIZED & set(args):      # first, as TF evaluates its arguments
            args[arg] = identity(args[arg])
        for arg, value in args.items():
            if not hasattr(value, "op"):
                args[arg] = convert.convert_to_tensor(value, dtype=_INPUT_DTYPES.get(arg),
                                                      name=arg)
        inputs = [writer._resource, step] + [args[arg] for arg in _INPUT_NAMES[op_type]]
        return _apply(op_type, inputs, attrs, name=scope or None)
    ctx = _EagerContext(writer._writer, attrs)
    step_value = _python(_choose_step(step))
    _run_eagerly(op_type, ctx, writer._resource, np.int64(step_value),
                 *[_numpy(v) for v in values])
    return None


def _run_eagerly(op_type, ctx, *inputs):
    """The op's kernel run now; its error as TF's eager ones read (` [Op:TYPE]`)."""
    from tfteach.framework.errors import OpError
    try:
        get_op_def(op_type).kernels["CPU"](ctx, *inputs)
    except OpError as e:
        raise type(e)(None, None, "%s [Op:%s]" % (e.message, op_type)) from None


# The names of the write ops' inputs after (writer, step), as TF's OpDefs name them.
_INPUT_NAMES = {"WriteScalarSummary": ("tag", "value"),
                "WriteHistogramSummary": ("tag", "values"),
                "WriteImageSummary": ("tag", "tensor", "bad_color"),
                "WriteAudioSummary": ("tag", "tensor", "sample_rate"),
                "WriteSummary": ("tensor", "tag", "summary_metadata")}
_SUMMARIZED = {"tensor", "value", "values"}
_INPUT_DTYPES = {"sample_rate": dtypes.float32, "bad_color": dtypes.uint8}


class _EagerContext:
    """What a writer kernel reads of its context, executing eagerly."""

    def __init__(self, writer, attrs):
        self.op = None
        self.attrs = attrs
        self.session = self
        self.resources = self
        self._writer = writer

    def lookup(self, name):
        return self._writer


def _numpy(value):
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value, dtype=object) if isinstance(value, (str, bytes)) else \
        np.asarray(value)


def _summary(name, tensor, write, family=None):
    """TF 1.15's summary_writer_function: `write(tag, scope)` records the summary when a
    default writer exists and the recording condition holds (a condition known only when
    the graph runs: a tf.cond). Returns TF's value: a NoOp (None eagerly) without a
    writer, else a bool tensor, True when it recorded."""
    if _STATE.writer is None:
        return _no_op()
    condition = _condition()
    if _eager():
        if not _constant_value(condition):
            return _constant(False)
        scope = eager_mode.STATE.name_scope
        clean, family = summary_ops._clean_tag(name), summary_ops._clean_tag(family)
        tag = scope + (clean if family is None else "%s/%s" % (family, clean))
        write(tag, "")
        return _constant(True)
    graph = graph_lib.get_default_graph()
    outer = graph.get_name_scope()

    def record():
        with graph.name_scope(outer + "/" if outer else ""), \
                summary_ops._summary_scope(name, family) as (tag, scope):
            with graph.control_dependencies([write(tag, scope)]):
                return _constant(True)

    def nothing():
        return _constant(False)
    known = _constant_value(condition)
    with graph.device("cpu:0"):         # TF pins summaries to the CPU
        # TF's should_record_summaries() op, which TF folds when its value is known.
        should = should_record_summaries()
        if known is None:
            from tfteach.ops.cond_ops import cond
            op = cond(should, record, nothing, name="")   # TF's: in the root scope
        else:
            op = record() if known else nothing()
    graph.add_to_collection(SUMMARY_COLLECTION, op)
    return op


def generic(name, tensor, metadata=None, family=None, step=None):
    """A tensor summary, with `metadata` (a SummaryMetadata, or its bytes)."""
    def write(tag, scope):
        serialized = b"" if metadata is None else (
            metadata.SerializeToString() if hasattr(metadata, "SerializeToString")
            else metadata)
        if not _eager() and not hasattr(serialized, "op"):
            serialized = _constant(serialized)          # TF's Const in the scope
        return _write("WriteSummary", tag, scope, step,
                      [tensor, tag, _string(serialized)], {})
    return _summary(name, tensor, write, family)


def _string(value):
    return np.array(value, dtype=object) if _eager() else value


def scalar(name, tensor, family=None, step=None):
    """A scalar summary (`simple_value`, the tensor's first value as a float)."""
    def write(tag, scope):
        return _write("WriteScalarSummary", tag, scope, step, [tag, tensor], {})
    return _summary(name, tensor, write, family)


def histogram(name, tensor, family=None, step=None):
    """A histogram summary, in TF 1's buckets."""
    def write(tag, scope):
        return _write("WriteHistogramSummary", tag, scope, step, [tag, tensor], {})
    return _summary(name, tensor, write, family)


def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Up to `max_images` images of a [N, H, W, 1|3|4] tensor (tags name/image/0, ...)."""
    def write(tag, scope):
        color = _constant(_BAD_COLOR, dtypes.uint8) if bad_color is None and \
            not _eager() else (np.array(_BAD_COLOR, np.uint8) if bad_color is None
                               else bad_color)
        return _write("WriteImageSummary", tag, scope, step,
                      [tag, tensor, _uint8(color)], {"max_images": int(max_images)})
    return _summary(name, tensor, write, family)


def _uint8(value):
    if _eager() or hasattr(value, "op"):
        return value
    return convert.convert_to_tensor(value, dtype=dtypes.uint8, name="bad_color")


def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    """Up to `max_outputs` WAV clips of a [N, frames(, channels)] float tensor."""
    def write(tag, scope):
        return _write("WriteAudioSummary", tag, scope, step, [tag, tensor, sample_rate],
                      {"max_outputs": int(max_outputs)})
    return _summary(name, tensor, write, family)


def graph(param, step=None, name=None):
    """Writes a serialized GraphDef (eagerly also a Graph or GraphDef); no recording
    condition applies. In a graph `param` must be a tensor (TF's TypeError)."""
    if not _eager() and not hasattr(param, "op"):
        raise TypeError("graph() needs a tf.Tensor (e.g. tf.placeholder) in graph mode, "
                        "but was: %s" % type(param))
    writer = _STATE.writer
    if writer is None:
        return _no_op()
    if _eager():
        if isinstance(param, graph_lib.Graph) or hasattr(param, "SerializeToString"):
            param = _serialize_graph(param)
        _write("WriteGraphSummary", "", "", step, [_string(_bytes(param))], {})
        return None
    from tfteach.ops.constant_op import identity
    with graph_lib.get_default_graph().device("cpu:0"):
        tensor = identity(param)
        return _apply("WriteGraphSummary", [writer._resource, _choose_step(step), tensor],
                      name=name)


_graph = graph          # for initialize, whose `graph` argument hides the function


def import_event(tensor, name=None):
    """Writes serialized Event protos as they are (no recording condition)."""
    writer = _STATE.writer
    if _eager():
        _run_eagerly("ImportEvent", _EagerContext(writer._writer, {}), writer._resource,
                     _string(_bytes(tensor)))
        return None
    return _apply("ImportEvent", [writer._resource, convert.convert_to_tensor(tensor)],
                  name=name)


def flush(writer=None, name=None):
    """Flushes `writer` (default: the thread's): in a graph, the op that does it."""
    if writer is None:
        writer = _STATE.writer
        if writer is None:
            return _no_op()
    if isinstance(writer, _NoopWriter):
        return None
    if _eager():
        writer._writer.flush()
        return None
    with graph_lib.get_default_graph().device("cpu:0"):
        return _apply("FlushSummaryWriter", [writer._resource], name=name)


def all_summary_ops():
    """The graph's tf.contrib.summary ops (None executing eagerly)."""
    if _eager():
        return None
    return graph_lib.get_default_graph().get_collection(SUMMARY_COLLECTION)


def summary_writer_initializer_op():
    """The ops creating the graph's writers; RuntimeError executing eagerly."""
    if _eager():
        raise RuntimeError("tf.contrib.summary.summary_writer_initializer_op is only "
                           "supported in graph mode.")
    return graph_lib.get_default_graph().get_collection(WRITER_INIT_COLLECTION)


def _serialize_graph(arbitrary_graph):
    if isinstance(arbitrary_graph, graph_lib.Graph):
        return arbitrary_graph.as_graph_def(add_shapes=True).SerializeToString()
    return arbitrary_graph.SerializeToString()


def initialize(graph=None, session=None):
    """Runs the writers' initializers in `session` (the default one), and writes `graph`
    (a Graph or GraphDef) at step 0. Nothing executing eagerly."""
    if _eager():
        return
    if _STATE.writer is None:
        raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")
    if session is None:
        from tfteach.runtime.session import get_default_session
        session = get_default_session()
        if session is None:
            raise ValueError("session must be passed if no default session exists")
    session.run(summary_writer_initializer_op())
    if graph is not None:
        from tfteach.ops.constant_op import placeholder
        data = _serialize_graph(graph)
        x = placeholder(dtypes.string)
        session.run(_graph(x, 0), feed_dict={x: data})


def eval_dir(model_dir, name=None):
    """The logdir of an evaluation's summaries: `model_dir/eval` or `model_dir/eval_<name>`."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)
