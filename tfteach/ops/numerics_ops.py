"""Finding where a NaN or an Inf first appears: `tf.check_numerics`,
`tf.verify_tensor_all_finite` (`tf.debugging.assert_all_finite`) and
`tf.add_check_numerics_ops`, as TensorFlow 1.15's numerics.py and its `CheckNumerics` op.

`CheckNumerics(tensor, message)` passes a float tensor on unchanged while all its values
are finite; otherwise it fails the run with TF's `InvalidArgumentError`
"<message> : Tensor had NaN values" ("Inf values", "Inf and NaN values"). It is a
stateful op, as in TF: the optimizer never folds or merges a check away. Its gradient
checks the gradient the same way.
"""
import numpy as np

from tfteach.framework import convert, dtypes, eager_mode
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import gradient, register_op
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops import dependency_ops
from tfteach.ops.op_builder import apply_op, same_shape_fn
from tfteach.ops.typed_inputs import check_allowed

__all__ = ["check_numerics", "verify_tensor_all_finite", "add_check_numerics_ops"]
# (assert_all_finite, TF 2's name, is in tf.debugging only: tfteach/debugging.py)

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _check_numerics_kernel(ctx, tensor):
    values = np.asarray(tensor)
    if np.isfinite(values).all():
        return tensor
    nan, inf = bool(np.isnan(values).any()), bool(np.isinf(values).any())
    status = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
    raise invalid_argument(ctx, "%s : Tensor had %s values" % (ctx.attrs["message"], status))


register_op("CheckNumerics", same_shape_fn, cpu=_check_numerics_kernel, stateful=True)


@gradient("CheckNumerics")
def _check_numerics_grad(op, grad):
    # TF 1.15 formats the attr as Python 3 reads it, bytes: "... gradient. b'loss'".
    return check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in "
                                "gradient. %s" % op.get_attr("message").encode("utf-8"))


def check_numerics(tensor, message, name=None):
    """`tensor`, checked when it is computed: a NaN or an Inf in it fails the run with an
    InvalidArgumentError that starts with `message`."""
    tensor = convert.convert_to_tensor(tensor, name="tensor")
    check_allowed(tensor.dtype.base_dtype, "float", "tensor")
    return apply_op("CheckNumerics", [tensor],
                    {"T": tensor.dtype.base_dtype, "message": str(message)},
                    name or "CheckNumerics")


def verify_tensor_all_finite(t, msg, name=None):
    """`t`, run only after `check_numerics(t, msg)` (TF 1.15: an Identity under the
    check's control, in a `VerifyFinite` scope)."""
    with name_scope(name, "VerifyFinite", [t]):
        t = convert.convert_to_tensor(t, name="t")
        verify_input = check_numerics(t, message=msg)
        return dependency_ops.with_dependencies([verify_input], t)


def assert_all_finite(t, msg, name=None):
    """`tf.debugging.assert_all_finite`: `verify_tensor_all_finite` under TF 2's name."""
    return verify_tensor_all_finite(t, msg, name)


def add_check_numerics_ops():
    """One `check_numerics` for every float output of every op in the default graph, each
    message "op name:output index", chained with control dependencies so they run in the
    graph's order; returns the op that runs them all (`tf.group`). Run it with the
    training step to learn which op made the first NaN or Inf."""
    if eager_mode.executing_eagerly():
        raise RuntimeError(
            "add_check_numerics_ops() is not compatible with eager execution. To check "
            "for Inf's and NaN's under eager execution, call "
            "tfe.seterr(inf_or_nan='raise') once before executing the checked operations.")
    graph = graph_lib.get_default_graph()
    check_op = []
    # get_operations() lists an op after its inputs' ops: the checks run in that order.
    for op in graph.get_operations():
        for output in op.outputs:
            if output.dtype.base_dtype in _FLOATS:
                if op._control_flow_context is not None:
                    raise ValueError("`tf.add_check_numerics_ops() is not compatible with "
                                     "TensorFlow control flow operations such as "
                                     "`tf.cond()` or `tf.while_loop()`.")
                message = op.name + ":" + str(output.value_index)
                with graph.control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return dependency_ops.group(*check_op)
