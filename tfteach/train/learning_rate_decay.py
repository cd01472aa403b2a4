"""Learning-rate schedules: tensors computed from the global step when the graph runs.

Each function builds a few ops (under a name scope such as `ExponentialDecay`) and
returns the learning rate as a tensor; give it to an optimizer and pass the same
global_step to `minimize`, so the rate follows the step count. TF 1.15's formulas
(p = global_step / decay_steps, floored when staircase=True):
    exponential_decay     lr * decay_rate ** p
    natural_exp_decay     lr * exp(-decay_rate) ** p
    inverse_time_decay    lr / (1 + decay_rate * p)
    polynomial_decay      (lr - end_lr) * (1 - min(step, decay_steps)/decay_steps)**power
                          + end_lr; cycle=True stretches decay_steps to the next
                          multiple of decay_steps instead of stopping
    piecewise_constant    values[i] while boundaries[i-1] < x <= boundaries[i]
"""
from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope

__all__ = ["exponential_decay", "piecewise_constant", "piecewise_constant_decay",
           "polynomial_decay", "natural_exp_decay", "inverse_time_decay"]


def _tf():
    # The math and control-flow ops, looked up when a schedule is built.
    import tfteach
    return tfteach


def _start(learning_rate, decay_steps, decay_rate, global_step):
    tf = _tf()
    initial = convert.convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = initial.dtype
    return (initial, dtype, tf.cast(decay_steps, dtype), tf.cast(decay_rate, dtype),
            tf.cast(global_step, dtype))


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * decay_rate ** (global_step / decay_steps)."""
    tf = _tf()
    with name_scope(name or "ExponentialDecay") as scope:
        initial, _, decay_steps, decay_rate, step = _start(learning_rate, decay_steps,
                                                           decay_rate, global_step)
        p = step / decay_steps
        if staircase:
            p = tf.floor(p)
        return tf.multiply(initial, tf.pow(decay_rate, p), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    tf = _tf()
    natural_exp_rate = tf.exp(tf.negative(decay_rate))     # outside the schedule's scope
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate,
                             staircase=staircase, name=name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    tf = _tf()
    with name_scope(name or "InverseTimeDecay") as scope:
        initial, dtype, decay_steps, decay_rate, step = _start(learning_rate, decay_steps,
                                                               decay_rate, global_step)
        p = step / decay_steps
        if staircase:
            p = tf.floor(p)
        const = tf.cast(tf.constant(1), dtype)
        denom = tf.add(const, tf.multiply(decay_rate, p))
        return tf.divide(initial, denom, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """From learning_rate to end_learning_rate over decay_steps, along (1 - p) ** power."""
    tf = _tf()
    with name_scope(name or "PolynomialDecay") as scope:
        initial = convert.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        end_learning_rate = tf.cast(end_learning_rate, dtype)
        power = tf.cast(power, dtype)
        step = tf.cast(global_step, dtype)
        decay_steps_recomp = tf.cast(decay_steps, dtype)
        if cycle:
            # The first multiple of decay_steps above the step (1 at step 0).
            multiplier = tf.cond(tf.equal(step, 0), lambda: 1.0,
                                 lambda: tf.ceil(step / decay_steps))
            decay_steps_recomp = tf.multiply(decay_steps_recomp, multiplier)
        else:
            step = tf.minimum(step, decay_steps_recomp)     # stays at end_learning_rate
        p = tf.divide(step, decay_steps_recomp)
        return tf.add(tf.multiply(initial - end_learning_rate, tf.pow(1 - p, power)),
                      end_learning_rate, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] for x <= boundaries[0], values[i] for boundaries[i-1] < x <= boundaries[i],
    values[-1] for x > boundaries[-1]."""
    tf = _tf()
    boundaries = [convert.convert_to_tensor(b) for b in _flat(boundaries)]
    values = [convert.convert_to_tensor(v) for v in _flat(values)]
    x_recomp = convert.convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x_recomp.dtype.base_dtype:
            # Python int boundaries against an int64 global step: widening is exact.
            if b.dtype.base_dtype == dtypes.int32 and x_recomp.dtype.base_dtype == dtypes.int64:
                boundaries[i] = tf.cast(b, x_recomp.dtype.base_dtype)
            else:
                raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                                 % (b.dtype.base_dtype, x_recomp.dtype.base_dtype))
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                             % (values[0].dtype.base_dtype, v.dtype.base_dtype))
    if len(boundaries) != len(values) - 1:
        raise ValueError(
            "The length of boundaries should be 1 less than the length of values")
    with name_scope(name or "PiecewiseConstant"):
        x_recomp = convert.convert_to_tensor(x)
        pred_fn_pairs = [(x_recomp <= boundaries[0], lambda: values[0]),
                         (x_recomp > boundaries[-1], lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pred = (x_recomp > low) & (x_recomp <= high)
            pred_fn_pairs.append((pred, lambda v=v: v))
        # The conditions are exclusive and exhaustive; tf.case still wants a default.
        return tf.case(pred_fn_pairs, lambda: values[0], exclusive=True)


piecewise_constant_decay = piecewise_constant


def _flat(values):
    out = []
    for v in values:
        out.extend(_flat(v) if isinstance(v, (list, tuple)) else [v])
    return out
