"""`tf.train.AdadeltaOptimizer`: step sizes from running averages of squared gradients
and of squared updates (Zeiler, 2012).

Slots "accum" (`W/Adadelta`) and "accum_update" (`W/Adadelta_1`), zeros. `ApplyAdadelta`:
    accum        = rho * accum + (1 - rho) * grad**2
    update       = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad
    var         -= lr * update
    accum_update = rho * accum_update + (1 - rho) * update**2
TF 1.15's default learning_rate is 0.001 (the paper uses 1.0).
"""
from tfteach.framework import convert
from tfteach.ops import training_ops
from tfteach.ops.cast_ops import cast
from tfteach.train import optimizer

__all__ = ["AdadeltaOptimizer"]


class AdadeltaOptimizer(optimizer.Optimizer):
    """Adadelta."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon
        self._lr_t = None
        self._rho_t = None
        self._epsilon_t = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert.convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert.convert_to_tensor(self._call_if_callable(self._rho),
                                                name="rho")
        self._epsilon_t = convert.convert_to_tensor(self._call_if_callable(self._epsilon),
                                                    name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return training_ops.apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            cast(self._lr_t, dtype), cast(self._rho_t, dtype), cast(self._epsilon_t, dtype),
            grad, use_locking=self._use_locking)
