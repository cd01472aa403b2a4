"""`tf.train.GradientDescentOptimizer`: var -= learning_rate * gradient.

No slots. `_prepare` makes the tensor `GradientDescent/learning_rate`; each variable
gets one `ApplyGradientDescent` op (`GradientDescent/update_W/ApplyGradientDescent`).
"""
from tfteach.framework import convert
from tfteach.ops.cast_ops import cast
from tfteach.ops import training_ops
from tfteach.train import optimizer

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(optimizer.Optimizer):
    """Plain gradient descent."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        learning_rate = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert.convert_to_tensor(learning_rate,
                                                               name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
            use_locking=self._use_locking).op
