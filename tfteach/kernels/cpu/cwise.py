"""CPU kernels of TensorFlow's coefficient-wise ops, built from ufuncs.

A kernel here wraps one ufunc (NumPy's, or a Numba one from `elementwise.py`) and adds
what TensorFlow's runtime does around it:
- inputs whose shapes do not broadcast -> `Incompatible shapes: [2] vs. [3]`;
- float math stays silent (TF prints no warning for 1/0, log(0), overflow): the
  executor runs each `Session.run` under `np.errstate(all="ignore")`;
- integer division or modulo by zero -> `Integer division by zero` (NumPy would warn
  and return 0).
The op's shape function picks the kernel for the op's dtype when the graph is built
(`dispatch_by_dtype`), so a kernel call does no dtype test: the hot path of `x + y` is
one ufunc call.
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.channel_loops import add_channel_bias, bias_operands
from tfteach.kernels.cpu.two_workers import THIS_THREAD, split_ufunc

__all__ = ["shape_string", "incompatible_shapes", "ufunc_kernel", "quiet_ufunc_kernel",
           "quiet_add_kernel",
           "integer_division_kernel", "missing_kernel", "dispatch_by_dtype", "run_impl"]


def shape_string(value):
    """A value's shape as TF's runtime messages print it: `[2,3]`."""
    return "[%s]" % ",".join(str(d) for d in np.shape(value))


def incompatible_shapes(ctx, x, y):
    return InvalidArgumentError(None, ctx.op, "Incompatible shapes: %s vs. %s"
                                % (shape_string(x), shape_string(y)))


def ufunc_kernel(ufunc):
    """Kernel for integer, bool and string dtypes: the ufunc itself (it cannot warn)."""
    def kernel(ctx, *inputs):
        try:
            return ufunc(*inputs)
        except ValueError:          # the only ValueError a ufunc raises: broadcasting
            raise incompatible_shapes(ctx, *inputs) from None
    kernel.__name__ = "%s_kernel" % ufunc.__name__
    kernel.ufunc = ufunc            # what the optimizer's chain fusion calls in place
    return kernel


def quiet_ufunc_kernel(ufunc):
    """Kernel for floats. The executor runs every step with NumPy's floating-point
    warnings off (once per `Session.run`, not once per op), so this is the plain ufunc
    call; the name records that float math must stay silent, as in TensorFlow. In a step
    with convolutions a large one runs in two halves (two_workers.split_ufunc)."""
    def kernel(ctx, *inputs):
        try:
            if not window.depth:    # outside a BLAS window: the ufunc, with no more calls
                return ufunc(*inputs)
            return split_ufunc(ufunc, inputs)
        except ValueError:          # the only ValueError a ufunc raises: broadcasting
            raise incompatible_shapes(ctx, *inputs) from None
    window = THIS_THREAD
    kernel.__name__ = "quiet_%s_kernel" % getattr(ufunc, "__name__", "ufunc")
    kernel.ufunc = ufunc
    return kernel


def quiet_add_kernel():
    """Float Add/AddV2: the quiet np.add kernel, except for `x + b` (or `b + x`) with b a
    per-channel bias vector of x's last axis, which a row loop adds ~2x faster
    (channel_loops.py). Same values either way."""
    plain = quiet_ufunc_kernel(np.add)

    def kernel(ctx, x, y):
        # bias_operands' first test, inlined: most adds have operands of equal ranks.
        if type(x) is np.ndarray and type(y) is np.ndarray and x.ndim != y.ndim:
            operands = bias_operands(x, y)
            if operands is not None:
                return add_channel_bias(*operands)
        return plain(ctx, x, y)
    kernel.__name__ = "quiet_add_kernel"
    kernel.ufunc = np.add           # the bias path adds the same numbers
    return kernel


def integer_division_kernel(ufunc):
    """Kernel for integer `//`, `%`, ...: a zero divisor is TF's InvalidArgumentError.

    NumPy flags an integer division by zero like a float one, so under
    `errstate(divide="raise")` it raises instead of returning 0. `INT_MIN // -1`
    overflows silently and wraps, as in TensorFlow.
    """
    def kernel(ctx, x, y):
        with np.errstate(divide="raise", over="ignore", invalid="ignore"):
            try:
                return ufunc(x, y)
            except FloatingPointError:
                raise InvalidArgumentError(None, ctx.op, "Integer division by zero") from None
            except ValueError:
                raise incompatible_shapes(ctx, x, y) from None
    kernel.__name__ = "integer_%s_kernel" % getattr(ufunc, "__name__", "division")
    return kernel


def missing_kernel(op_type):
    """TF registers no CPU kernel for this dtype (e.g. RealDiv of int32)."""
    def kernel(ctx, *inputs):
        dtype = ctx.attrs["T"]
        raise InvalidArgumentError(
            None, ctx.op, "No OpKernel was registered to support Op '%s' used by node %s "
            "with these attrs: [T=DT_%s]\nRegistered devices: [CPU]"
            % (op_type, ctx.op.name, dtype.name.upper()))
    return kernel


def dispatch_by_dtype(kernels_by_kind, op_type):
    """Picks a kernel for a dtype when an op is built.

    `kernels_by_kind` maps NumPy dtype kinds ("f" float, "i" signed, "u" unsigned,
    "b" bool, "O" string; "iu" for both int kinds) to kernels.
    """
    table = {}
    for kinds, kernel in kernels_by_kind.items():
        for kind in kinds:
            table[kind] = kernel
    fallback = missing_kernel(op_type)

    def choose(dtype):
        return table.get(dtype.np.kind, fallback)
    return choose


def run_impl(ctx, *inputs):
    """The registered kernel of dtype-dispatched ops: runs what the shape fn chose."""
    return ctx.attrs["_impl"](ctx, *inputs)


# The Session binds the chosen kernel directly when it makes the op's KernelContext,
# so a run skips this indirection (see runtime/session.py, `kernel_for_op`).
run_impl.kernel_for_op = lambda op: op._attrs["_impl"]
