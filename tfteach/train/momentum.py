"""`tf.train.MomentumOptimizer`: gradient descent with a velocity.

Slot "momentum" (the variable `W/Momentum`, zeros), updated by `ApplyMomentum`:
    accum = momentum * accum + grad
    var  -= lr * accum                                  (use_nesterov=False)
    var  -= lr * grad + lr * momentum * accum           (use_nesterov=True)
"""
from tfteach.framework import convert
from tfteach.ops.cast_ops import cast
from tfteach.ops import training_ops
from tfteach.train import optimizer

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(optimizer.Optimizer):
    """Momentum (heavy ball), or Nesterov's accelerated gradient with use_nesterov."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._momentum_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        return training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), cast(self._learning_rate_tensor, dtype),
            grad, cast(self._momentum_tensor, dtype), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov).op
