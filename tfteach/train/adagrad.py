"""`tf.train.AdagradOptimizer`: a step size per coordinate, shrinking with its history.

Slot "accumulator" (`W/Adagrad`, starting at `initial_accumulator_value`), updated by
`ApplyAdagrad`:
    accum += grad ** 2
    var   -= lr * grad / sqrt(accum)
"""
from tfteach.framework import convert
from tfteach.ops import init_ops, training_ops
from tfteach.ops.cast_ops import cast
from tfteach.train import optimizer

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(optimizer.Optimizer):
    """Adagrad (Duchi et al., 2011)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s"
                             % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._learning_rate_tensor = None

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value,
                                                     dtype=dtype)
            else:
                init = self._init_constant_op(v, dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype,
                                                    "accumulator", self._name)

    def _init_constant_op(self, v, dtype):
        def init():
            # The variable's shape is known only when running: fill its runtime shape.
            import tfteach as tf
            return tf.cast(tf.fill(tf.shape(v), self._initial_accumulator_value), dtype)
        return init

    def _prepare(self):
        self._learning_rate_tensor = convert.convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"),
            cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking)
