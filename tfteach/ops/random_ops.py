"""Random ops (`tf.random_normal`, ...) and TensorFlow 1.x's seed rules.

Seeds (TF's `random_seed.get_seed`; docs/random.md has examples). Every random op
carries two seeds, `seed` (graph-level) and `seed2` (op-level):
- graph seed set (`tf.set_random_seed`), op seed None: the op seed is the id of the last
  op created in the graph, so the same program gives the same numbers every time
  (eagerly: drawn from Python's `random.Random(global seed)`, as TF's eager context);
- graph seed None, op seed set: the graph seed is DEFAULT_GRAPH_SEED;
- both None: (0, 0), which the kernel reads as "draw fresh entropy".
The generator lives in the op's kernel context (kernels/cpu/random_kernels.py): each
`sess.run` continues the op's sequence, and a new Session starts it again.

Each function builds TensorFlow's ops and names (`random_normal/RandomStandardNormal`,
output `random_normal:0`), except that the final `* stddev + mean` (or
`* (maxval - minval) + minval`) is one small op (`ScaleShift` / `UniformRange`) instead
of TF's `mul` and `add` (`sub`, `mul` and `add`), so random ops do not depend on the math
ops. That op takes the ids TF's two (three) ops take (`_take_ids_of`): the op seed of
a later random op under a graph seed, the number of ops built before it, is TF 1.15's.
The kernels draw TensorFlow's own numbers (kernels/cpu/philox.py): a seeded program
gives TF 1.15's values.
"""
import numpy as np

from tfteach.framework import convert, dtypes, eager_mode, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.kernels.cpu import random_kernels as kernels
from tfteach.ops import op_builder
from tfteach.ops.build_time_values import inferred_value
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.shape_utils import partial_shape_from_tensor

__all__ = ["random_normal", "truncated_normal", "random_uniform", "random_shuffle",
           "multinomial", "categorical", "set_random_seed", "get_seed", "random_gamma"]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1
_INDEX_TYPES = (dtypes.int32, dtypes.int64)


# -- seeds ---------------------------------------------------------------------------------
def set_random_seed(seed):
    """Sets the default graph's random seed, as `tf.set_random_seed`.

    Random ops built afterwards without their own seed get one derived from it, so a
    program that sets it produces the same numbers every time it is run. Eagerly, as
    TensorFlow's eager context does, seeded ops also start their streams again.
    """
    graph_lib.get_default_graph().seed = seed
    if eager_mode.executing_eagerly():
        eager_mode.set_global_seed(seed)


def _truncate_seed(seed):
    return int(seed) % _MAXINT32     # seeds are stored in 32-bit attributes


def get_seed(op_seed):
    """(graph_seed, op_seed) an op with seed `op_seed` should use: TF's rules, above."""
    graph = graph_lib.get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None and eager_mode.executing_eagerly():
            op_seed = eager_mode.operation_seed(global_seed)
        elif op_seed is None:
            op_seed = graph._last_id       # TF 1.x: the id of the last op in the graph
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32     # (0, 0) means "unseeded" to the kernel; keep it seeded
    return seeds


def _seed_attrs(op_seed):
    seed, seed2 = get_seed(op_seed)
    return {"seed": seed or 0, "seed2": seed2 or 0}


# -- shape functions -----------------------------------------------------------------------
def shape_from_shape_tensor(shape):
    """The static shape a `shape` argument tensor describes (TF's MakeShapeFromShapeTensor:
    shape_utils.partial_shape_from_tensor)."""
    if shape.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % shape.shape.ndims)
    return partial_shape_from_tensor(shape)


def _random_shape(op):
    return [(op._attrs["dtype"], shape_from_shape_tensor(op._inputs[0]))]


def _check_scalar(tensor, what):
    if tensor.shape.ndims not in (None, 0):
        raise ShapeError("%s must be a scalar; got a tensor of shape %s"
                         % (what, tensor.shape.debug_string()))


def _uniform_int_shape(op):
    shape, minval, maxval = op._inputs
    _check_scalar(minval, "minval")
    _check_scalar(maxval, "maxval")
    return [(op._attrs["Tout"], shape_from_shape_tensor(shape))]


def _multinomial_shape(op):
    logits, num_samples = op._inputs
    if logits.shape.ndims not in (None, 2):
        raise ShapeError("Shape must be rank 2 but is rank %d" % logits.shape.ndims)
    if num_samples.shape.ndims not in (None, 0):
        raise ShapeError("Shape must be rank 0 but is rank %d" % num_samples.shape.ndims)
    count = inferred_value(num_samples)
    if count is not None and int(count) < 0:
        raise ShapeError("Dimension size, given by scalar input 1, must be non-negative but "
                         "is %d" % int(count))
    batch = logits.shape[0].value if logits.shape.ndims is not None else None
    return [(op._attrs["output_dtype"],
             tensor_shape.TensorShape([batch, None if count is None else int(count)]))]


def _affine_shape(op):
    values, a, b = op._inputs
    shape = op_builder.broadcast_static_shape(values.shape, a.shape)
    return [(values.dtype, op_builder.broadcast_static_shape(shape, b.shape))]


register_op("RandomStandardNormal", _random_shape, cpu=kernels.standard_normal_kernel,
            stateful=True)
register_op("TruncatedNormal", _random_shape, cpu=kernels.truncated_normal_kernel,
            stateful=True)
register_op("RandomUniform", _random_shape, cpu=kernels.uniform_kernel, stateful=True)
register_op("RandomUniformInt", _uniform_int_shape, cpu=kernels.uniform_int_kernel,
            stateful=True)
register_op("RandomShuffle", op_builder.same_shape_fn, cpu=kernels.shuffle_kernel,
            stateful=True)
register_op("Multinomial", _multinomial_shape, cpu=kernels.multinomial_kernel, stateful=True)
register_op("ScaleShift", _affine_shape, cpu=kernels.scale_shift_kernel)
register_op("UniformRange", _affine_shape, cpu=kernels.uniform_range_kernel)
for _op_type in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform",
                 "RandomUniformInt", "RandomShuffle", "Multinomial"):
    not_differentiable(_op_type)


# -- building ------------------------------------------------------------------------------
def _check_index_dtype(param, tensor):
    if tensor.dtype.base_dtype not in _INDEX_TYPES:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed "
                        "values: int32, int64" % (param, tensor.dtype.base_dtype.name))


def _shape_tensor(shape):
    """A `shape` argument (list, tuple, TensorShape, array or tensor) as an int tensor."""
    if isinstance(shape, tensor_shape.TensorShape):
        if not shape.is_fully_defined():
            raise ValueError("Cannot convert a partially known TensorShape %s to a Tensor."
                             % shape)
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)):
        if not shape:
            shape = np.zeros(0, np.int32)      # [] alone would become a float32 tensor
        else:
            shape = [tensor_shape.dimension_value(d) for d in shape]
    tensor = convert.convert_to_tensor(shape, name="shape")
    _check_index_dtype("shape", tensor)
    return tensor


def _check_float_dtype(dtype):
    if not dtype.is_floating:
        raise TypeError("Value passed to parameter 'dtype' has DataType %s not in list of "
                        "allowed values: float16, bfloat16, float32, float64" % dtype.name)


def _normal(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    graph = op_builder.graph_of([shape, mean, stddev])
    with graph.as_default(), graph.name_scope(name or default_name) as scope:
        shape = _shape_tensor(shape)
        mean = convert.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        attrs = _seed_attrs(seed)
        _check_float_dtype(dtype)
        attrs.update(dtype=dtype, T=shape.dtype)
        values = apply_op(op_type, [shape], attrs)
        _take_ids_of(graph, ["mul"])
        return apply_op("ScaleShift", [values, stddev, mean], {"T": dtype}, name=scope)


def _take_ids_of(graph, tf_ops):
    """Skips the ids of the ops TF 1.15 builds where tfteach builds one fused op (the
    fused op takes the id of TF's last one): the graph's count of ops, the op seed of a
    random op built later under a graph seed only (get_seed), stays TensorFlow's.
    (Eagerly no op joins a graph.)"""
    if eager_mode.executing_eagerly():
        return
    for _ in tf_ops:
        graph._next_id()


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples of a normal distribution N(mean, stddev**2), as `tf.random_normal`.

    A new sample every `sess.run`; see `tf.set_random_seed` for repeatable numbers.
    """
    return _normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed,
                   name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples, redrawn until within 2 stddev of the mean, as `tf.truncated_normal`."""
    return _normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


_UNIFORM_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval), as `tf.random_uniform`.

    Floats default to [0, 1); integer dtypes need `maxval`.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError("Invalid dtype %r" % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    graph = op_builder.graph_of([shape, minval, maxval])
    with graph.as_default(), graph.name_scope(name or "random_uniform") as scope:
        shape = _shape_tensor(shape)
        minval = convert.convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert.convert_to_tensor(maxval, dtype=dtype, name="max")
        attrs = _seed_attrs(seed)
        if dtype.is_integer:
            attrs.update(Tout=dtype, T=shape.dtype)
            return apply_op("RandomUniformInt", [shape, minval, maxval], attrs, name=scope)
        attrs.update(dtype=dtype, T=shape.dtype)
        values = apply_op("RandomUniform", [shape], attrs)
        _take_ids_of(graph, ["sub", "mul"])
        return apply_op("UniformRange", [values, minval, maxval], {"T": dtype}, name=scope)


def random_shuffle(value, seed=None, name=None):
    """`value` with its first dimension randomly permuted, as `tf.random_shuffle`."""
    graph = op_builder.graph_of([value])
    with graph.as_default():
        attrs = _seed_attrs(seed)
        with graph.name_scope(name or "RandomShuffle") as scope:
            value = convert.convert_to_tensor(value, name="value")
            attrs["T"] = value.dtype.base_dtype
            return apply_op("RandomShuffle", [value], attrs, name=scope)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """`num_samples` class indices per row of `logits` [batch, classes], as `tf.multinomial`.

    Class j of a row is drawn with probability softmax(row)[j]; the result is
    [batch, num_samples] of `output_dtype` (tf.int64 by default).
    """
    return _multinomial(logits, num_samples, seed, name or "multinomial", output_dtype)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`tf.random.categorical`: `multinomial` with TF 1.15's own argument order (the
    dtype third, so `categorical(logits, 5, tf.int32)` asks for int32 indices) and its
    own name scope (`categorical/Multinomial`)."""
    return _multinomial(logits, num_samples, seed, name or "categorical", dtype)


def _multinomial(logits, num_samples, seed, scope_name, output_dtype):
    output_dtype = dtypes.int64 if output_dtype is None else dtypes.as_dtype(output_dtype)
    if output_dtype not in _INDEX_TYPES:
        raise TypeError("Value passed to parameter 'output_dtype' has DataType %s not in list "
                        "of allowed values: int32, int64" % output_dtype.name)
    graph = op_builder.graph_of([logits, num_samples])
    with graph.as_default(), graph.name_scope(scope_name):
        logits = convert.convert_to_tensor(logits, name="logits")
        attrs = _seed_attrs(seed)
        with graph.name_scope("Multinomial") as scope:
            num_samples = convert.convert_to_tensor(num_samples, dtype=dtypes.int32,
                                                    name="num_samples")
            dtype = logits.dtype.base_dtype
            if not (dtype.is_floating or dtype.is_integer):
                raise TypeError("Value passed to parameter 'logits' has DataType %s not in "
                                "list of allowed values: float32, float64, int32, uint8, "
                                "int16, int8, int64, bfloat16, uint16, float16, uint32, "
                                "uint64" % dtype.name)
            attrs.update(T=dtype, output_dtype=output_dtype)
            return apply_op("Multinomial", [logits, num_samples], attrs, name=scope)


# tf.random_gamma: its ops and gradient live in their own module, which imports this one.
from tfteach.ops.random_gamma_ops import random_gamma  # noqa: E402,F401
