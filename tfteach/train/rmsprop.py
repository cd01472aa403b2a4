"""`tf.train.RMSPropOptimizer`: divide the step by a running RMS of the gradient.

Slots, created in this order: "rms" (`W/RMSProp`, ones), "mg" (`W/RMSProp_1`, zeros,
only when centered), "momentum" (zeros; `W/RMSProp_1`, or `W/RMSProp_2` if centered).
`ApplyRMSProp` (rho is `decay`):
    ms   = ms + (grad**2 - ms) * (1 - rho)
    mom  = momentum * mom + lr * grad / sqrt(ms + epsilon)
    var -= mom
Centered (`ApplyCenteredRMSProp`) also tracks mg, the mean gradient, and divides by
sqrt(ms - mg**2 + epsilon), an estimate of the gradient's standard deviation.
"""
from tfteach.framework import convert
from tfteach.ops import init_ops, training_ops
from tfteach.ops.cast_ops import cast
from tfteach.train import optimizer

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(optimizer.Optimizer):
    """RMSProp (Hinton's lecture 6e), with optional momentum and centering."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered
        self._learning_rate_tensor = None
        self._decay_tensor = None
        self._momentum_tensor = None
        self._epsilon_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            if v.get_shape().is_fully_defined():
                init_rms = init_ops.ones_initializer(dtype=v.dtype.base_dtype)
            else:
                import tfteach as tf
                init_rms = tf.ones_like(v)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(),
                                                    v.dtype.base_dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._decay_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        hyper = [cast(t, dtype) for t in (self._learning_rate_tensor, self._decay_tensor,
                                          self._momentum_tensor, self._epsilon_tensor)]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return training_ops.apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *hyper, grad,
                use_locking=self._use_locking).op
        return training_ops.apply_rms_prop(var, rms, mom, *hyper, grad,
                                           use_locking=self._use_locking).op
