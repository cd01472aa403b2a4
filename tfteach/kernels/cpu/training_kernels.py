"""Kernels of the optimizers' fused update ops (ApplyGradientDescent, ApplyAdam, ...).

Each `Apply*` op takes the variable and its slots *by reference* (VariableRef, see
state_kernels.py) and replaces their values with the updated ones, exactly as
TensorFlow's `training_ops.cc` computes them: the same formula, the same order of
operations, every step rounded to the variable's dtype (float32 stays float32).

Each update is written once, as a function of plain values (`_adam_step`, ...). The
Numba loop (`_adam_loop`) applies it element by element in one pass, in place. The
arrays it updates are the stored arrays themselves when the Session is their only
holder (`VariableRef.array_for_update`: nobody can see them change), else copies that
replace them. (In place is also the fast form: a loop writing `out[i]` from `var[i]`
with `out is var` defeats LLVM's vectorizer, which must assume they overlap.) For
dtypes Numba cannot compute in (float16), the same function runs on whole NumPy arrays
instead. `ApplyGradientDescent` on a small variable (a linear regression's `w` and `b`)
first tries `descend_small_in_place`: the same loop, without the checks' bookkeeping
that cost more than the update itself (docs/training.md).
"""
import numpy as np
from numba import njit

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu.gemm_update import add_product
from tfteach.kernels.cpu.linalg import DeferredProduct
from tfteach.kernels.cpu.state_kernels import VariableRef, sole_stored_array, variable_ref_of
from tfteach.kernels.cpu.two_workers import MIN_SPLIT_ELEMENTS, split_output, split_rows

__all__ = ["apply_gradient_descent_kernel", "apply_momentum_kernel", "apply_adagrad_kernel",
           "apply_rms_prop_kernel", "apply_centered_rms_prop_kernel", "apply_adam_kernel",
           "apply_adadelta_kernel"]

_NUMBA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# -- the update formulas (training_ops.cc), one element or whole arrays ------------------
def _gradient_descent_step(var, grad, alpha):
    return var - alpha * grad


@njit(cache=True)
def _gradient_descent_loop(out, var, grad, alpha):
    # One pass, no temporary; NumPy's `var - alpha * grad` makes two passes and two new
    # arrays, and for a 784x500 layer that costs as much as the update itself.
    for i in range(var.size):
        out[i] = var[i] - alpha * grad[i]


@njit(cache=True, nogil=True)
def _gradient_descent_in_place(var, grad, alpha):
    for i in range(var.size):
        var[i] = var[i] - alpha * grad[i]


# Constants such as `1 - rho` arrive precomputed in the variable's dtype: a Python `1.0`
# inside would turn float32 arithmetic into float64 under Numba.
def _momentum_step(var, accum, grad, lr, momentum, use_nesterov):
    accum = accum * momentum + grad
    if use_nesterov:
        var = var - (grad * lr + accum * momentum * lr)
    else:
        var = var - accum * lr
    return var, accum


def _adagrad_step(var, accum, grad, lr, one, update_slots):
    if update_slots:
        accum = accum + grad * grad
    var = var - grad * lr * (one / np.sqrt(accum))        # Eigen's rsqrt: 1 / sqrt
    return var, accum


def _rms_prop_step(var, ms, mom, grad, lr, one_minus_rho, momentum, epsilon):
    ms = ms + (grad * grad - ms) * one_minus_rho
    mom = mom * momentum + (grad * lr) / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _centered_rms_prop_step(var, mg, ms, mom, grad, lr, one_minus_rho, momentum, epsilon):
    mg = mg + (grad - mg) * one_minus_rho
    ms = ms + (grad * grad - ms) * one_minus_rho
    denom = (ms - mg * mg) + epsilon
    mom = mom * momentum + (grad * lr) / np.sqrt(denom)
    return var - mom, mg, ms, mom


def _adam_step(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
               use_nesterov):
    m = m + (grad - m) * one_minus_beta1
    v = v + (grad * grad - v) * one_minus_beta2
    if use_nesterov:
        var = var - ((grad * one_minus_beta1 + beta1 * m) * alpha) / (np.sqrt(v) + epsilon)
    else:
        var = var - (m * alpha) / (np.sqrt(v) + epsilon)
    return var, m, v


def _adadelta_step(var, accum, accum_update, grad, lr, rho, one_minus_rho, epsilon, one):
    accum = accum * rho + grad * grad * one_minus_rho
    update = np.sqrt(accum_update + epsilon) * (one / np.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accum_update = accum_update * rho + update * update * one_minus_rho
    return var, accum, accum_update


# -- the same formulas as one-pass Numba loops, updating flat arrays in place ----------
_momentum_one = njit(cache=True)(_momentum_step)
_adagrad_one = njit(cache=True)(_adagrad_step)
_rms_prop_one = njit(cache=True)(_rms_prop_step)
_centered_rms_prop_one = njit(cache=True)(_centered_rms_prop_step)
_adam_one = njit(cache=True)(_adam_step)
_adadelta_one = njit(cache=True)(_adadelta_step)


@njit(cache=True)
def _momentum_loop(var, accum, grad, lr, momentum, use_nesterov):
    for i in range(var.size):
        var[i], accum[i] = _momentum_one(var[i], accum[i], grad[i], lr, momentum,
                                         use_nesterov)


@njit(cache=True)
def _adagrad_loop(var, accum, grad, lr, one, update_slots):
    for i in range(var.size):
        var[i], accum[i] = _adagrad_one(var[i], accum[i], grad[i], lr, one, update_slots)


@njit(cache=True)
def _rms_prop_loop(var, ms, mom, grad, lr, one_minus_rho, momentum, epsilon):
    for i in range(var.size):
        var[i], ms[i], mom[i] = _rms_prop_one(
            var[i], ms[i], mom[i], grad[i], lr, one_minus_rho, momentum, epsilon)


@njit(cache=True)
def _centered_rms_prop_loop(var, mg, ms, mom, grad, lr, one_minus_rho, momentum, epsilon):
    for i in range(var.size):
        var[i], mg[i], ms[i], mom[i] = _centered_rms_prop_one(
            var[i], mg[i], ms[i], mom[i], grad[i], lr, one_minus_rho, momentum, epsilon)


@njit(cache=True)
def _adam_loop(var, m, v, grad, alpha, beta1, one_minus_beta1, one_minus_beta2, epsilon,
               use_nesterov):
    for i in range(var.size):
        var[i], m[i], v[i] = _adam_one(
            var[i], m[i], v[i], grad[i], alpha, beta1, one_minus_beta1, one_minus_beta2,
            epsilon, use_nesterov)


@njit(cache=True)
def _adadelta_loop(var, accum, accum_update, grad, lr, rho, one_minus_rho, epsilon, one):
    for i in range(var.size):
        var[i], accum[i], accum_update[i] = _adadelta_one(
            var[i], accum[i], accum_update[i], grad[i], lr, rho, one_minus_rho, epsilon,
            one)


# -- reading the inputs, with TensorFlow's checks ----------------------------------------
def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def shape_mismatch(ctx, name, var_shape, other_shape):
    """TF's error (training_ops.cc) for a slot or gradient not shaped like the variable;
    the CUDA updates raise it too (kernels/cuda/training.py)."""
    return InvalidArgumentError(None, ctx.op, "var and %s do not have the same shape%s %s"
                                % (name, _shape_text(var_shape), _shape_text(other_shape)))


def _refs(ctx, values, ref_names):
    """The variable and slot values, initialized and shaped like the variable, and for
    each the stored array made writeable if it may be updated in place, else None.

    An uninitialized one fails as in TF, whose executor checks every ref input before
    the kernel runs: "Attempting to use uninitialized value W/Momentum".
    """
    refs, arrays, in_place = [], [], []
    for index, name in enumerate(ref_names):
        ref = variable_ref_of(ctx, values[index], index)
        in_place.append(ref.array_for_update())     # before deref adds a holder
        value = ref.deref()
        if arrays and value.shape != arrays[0].shape:
            raise shape_mismatch(ctx, name, arrays[0].shape, value.shape)
        refs.append(ref)
        arrays.append(value)
    return refs, arrays, in_place


def _scalars(ctx, dtype, pairs):
    """Each (name, value) as a NumPy scalar of `dtype`; TF's error for a non-scalar."""
    out = []
    for name, value in pairs:
        value = np.asarray(value)
        if value.ndim != 0:
            raise InvalidArgumentError(None, ctx.op, "%s is not a scalar: %s"
                                       % (name, _shape_text(value.shape)))
        out.append(dtype.type(value))
    return out


def _grad(ctx, var, grad, name="grad"):
    grad = np.asarray(grad)
    if grad.shape != var.shape:
        raise shape_mismatch(ctx, name, var.shape, grad.shape)
    return grad


def _update(refs, arrays, in_place, loop, step, *args):
    """Runs the update (Numba loop or NumPy arrays) and stores the new values; `in_place`
    holds, per array, the stored array itself when it may be updated in place."""
    shape, dtype = arrays[0].shape, arrays[0].dtype
    if dtype in _NUMBA_DTYPES:
        new = [a.copy() if d is None else d for a, d in zip(arrays, in_place)]
        loop(*[a.reshape(-1) for a in new], *args)
    else:
        flat = [_flat(a) for a in arrays]
        new = [np.asarray(v, dtype=dtype).reshape(shape) for v in step(*flat, *args)]
    for ref, value in zip(refs, new):
        ref.store_value(value, owned=True)
    return refs[0]


# -- the kernels ---------------------------------------------------------------------------
def apply_gradient_descent_kernel(ctx, var, alpha, delta):
    if type(var) is VariableRef and descend_small_in_place(var, alpha, delta):
        return var
    return _apply_gradient_descent(ctx, var, alpha, delta)


def _apply_gradient_descent(ctx, var, alpha, delta):
    """Every case, with TensorFlow's checks and errors (the fast path's fallback)."""
    refs, (value,), (own,) = _refs(ctx, [var], ["var"])
    (alpha,) = _scalars(ctx, value.dtype, [("alpha", alpha)])
    if isinstance(delta, DeferredProduct):      # a fused plan (runtime/fusion.py)
        if delta.shape == value.shape and delta.dtype == value.dtype:
            refs[0].store_value(_descend_by_product(value, own, alpha, delta), owned=True)
            return refs[0]
        delta = delta.compute()                 # fails below with TF's shape error
    delta = _grad(ctx, value, delta, "delta")
    if value.dtype in _NUMBA_DTYPES:
        if own is not None:
            new, flat_new, flat_delta = own, own.reshape(-1), _flat(delta)
            # In a step with convolutions a big layer's update runs in two halves.
            split_rows(lambda lo, hi: _gradient_descent_in_place(
                flat_new[lo:hi], flat_delta[lo:hi], alpha), flat_new.size, flat_new.size)
        else:
            new = np.empty(value.shape, value.dtype)
            _gradient_descent_loop(new.reshape(-1), _flat(value), _flat(delta), alpha)
    else:
        new = _gradient_descent_step(value, delta, alpha)
    refs[0].store_value(new, owned=True)
    return refs[0]


def descend_small_in_place(ref, alpha, delta):
    """The commonest update, with none of the general path's bookkeeping: a float32/64
    CPU variable held by its Session alone, a gradient array of its dtype and shape, a
    scalar step size of its dtype, too small to split over two workers. Updates the
    stored array in place with the general path's Numba loop (so the same bits) and
    returns True; returns False, changing nothing, for anything else (an uninitialized
    variable, a wrong shape or dtype, a deferred product, a GPU's store), which the
    general path then handles and judges with TensorFlow's errors."""
    if type(delta) is not np.ndarray or type(alpha) is not np.ndarray:
        return False
    value = sole_stored_array(ref)
    if (value is None or value.dtype not in _NUMBA_DTYPES or delta.dtype != value.dtype
            or delta.shape != value.shape or alpha.shape != () or alpha.dtype != value.dtype
            or value.size >= MIN_SPLIT_ELEMENTS or not delta.flags.c_contiguous):
        return False
    value.setflags(write=True)          # (setflags: half the cost of flags.writeable)
    try:
        flat = value if value.ndim == 1 else value.reshape(-1)      # a view: own data
        _gradient_descent_in_place(flat, delta if delta.ndim == 1 else delta.reshape(-1),
                                   alpha[()])
    finally:
        value.setflags(write=False)         # stored values stay read-only
    return True


def _descend_by_product(value, own, alpha, product):
    """var - alpha * (left @ right), the product accumulated by GEMM straight into the
    variable's array (or a copy when others hold it): no gradient array at all. In a step
    with convolutions a big layer's update runs in two halves of its rows or columns."""
    new = own if own is not None else value.copy()
    left, right = product.left, product.right
    step = -alpha

    def part(rows, cols):
        add_product(new[rows, cols], left[rows], right[:, cols], step)
    split_output(new.shape[0], new.shape[1], left.shape[1], part)
    return new


def apply_momentum_kernel(ctx, var, accum, lr, grad, momentum):
    refs, arrays, in_place = _refs(ctx, [var, accum], ["var", "accum"])
    lr, momentum = _scalars(ctx, arrays[0].dtype, [("lr", lr), ("momentum", momentum)])
    grad = _grad(ctx, arrays[0], grad)
    return _update(refs, arrays, in_place, _momentum_loop, _momentum_step, _flat(grad),
                   lr, momentum, bool(ctx.attrs["use_nesterov"]))


def apply_adagrad_kernel(ctx, var, accum, lr, grad):
    refs, arrays, in_place = _refs(ctx, [var, accum], ["var", "accum"])
    dtype = arrays[0].dtype
    (lr,) = _scalars(ctx, dtype, [("lr", lr)])
    grad = _grad(ctx, arrays[0], grad)
    return _update(refs, arrays, in_place, _adagrad_loop, _adagrad_step, _flat(grad),
                   lr, dtype.type(1), bool(ctx.attrs.get("update_slots", True)))


def apply_rms_prop_kernel(ctx, var, ms, mom, lr, rho, momentum, epsilon, grad):
    refs, arrays, in_place = _refs(ctx, [var, ms, mom], ["var", "ms", "mom"])
    dtype = arrays[0].dtype
    lr, rho, momentum, epsilon = _scalars(ctx, dtype, [
        ("lr", lr), ("rho", rho), ("momentum", momentum), ("epsilon", epsilon)])
    grad = _grad(ctx, arrays[0], grad)
    return _update(refs, arrays, in_place, _rms_prop_loop, _rms_prop_step, _flat(grad), lr,
                   dtype.type(1) - rho, momentum, epsilon)


def apply_centered_rms_prop_kernel(ctx, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    refs, arrays, in_place = _refs(ctx, [var, mg, ms, mom], ["var", "mg", "ms", "mom"])
    dtype = arrays[0].dtype
    lr, rho, momentum, epsilon = _scalars(ctx, dtype, [
        ("lr", lr), ("rho", rho), ("momentum", momentum), ("epsilon", epsilon)])
    grad = _grad(ctx, arrays[0], grad)
    return _update(refs, arrays, in_place, _centered_rms_prop_loop, _centered_rms_prop_step,
                   _flat(grad), lr, dtype.type(1) - rho, momentum, epsilon)


def apply_adam_kernel(ctx, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                      grad):
    refs, arrays, in_place = _refs(ctx, [var, m, v], ["var", "m", "v"])
    dtype = arrays[0].dtype
    beta1_power, beta2_power, lr, beta1, beta2, epsilon = _scalars(ctx, dtype, [
        ("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr),
        ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)])
    grad = _grad(ctx, arrays[0], grad)
    one = dtype.type(1)
    # The bias corrections of both moments folded into one step size, as TF does.
    alpha = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    return _update(refs, arrays, in_place, _adam_loop, _adam_step, _flat(grad), alpha, beta1,
                   one - beta1, one - beta2, epsilon, bool(ctx.attrs["use_nesterov"]))


def apply_adadelta_kernel(ctx, var, accum, accum_update, lr, rho, epsilon, grad):
    refs, arrays, in_place = _refs(ctx, [var, accum, accum_update],
                                       ["var", "accum", "accum_update"])
    dtype = arrays[0].dtype
    lr, rho, epsilon = _scalars(ctx, dtype, [("lr", lr), ("rho", rho), ("epsilon", epsilon)])
    grad = _grad(ctx, arrays[0], grad)
    one = dtype.type(1)
    return _update(refs, arrays, in_place, _adadelta_loop, _adadelta_step, _flat(grad), lr, rho,
                   one - rho, epsilon, one)


def _flat(array):
    """`array` as the loops want it: flat and contiguous (a view when it already is)."""
    return np.ascontiguousarray(array).reshape(-1)
