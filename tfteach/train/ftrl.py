"""`tf.train.FtrlOptimizer`: Follow-the-regularized-leader (McMahan et al., 2013), the
default optimizer of TF 1.15's linear canned Estimators.

Two slots per variable, as TF names them: "accum" (`W/Ftrl`, starting at
`initial_accumulator_value`) and "linear" (`W/Ftrl_1`, zeros). One step, TF's ApplyFtrl
(lr_power = learning_rate_power, shrinkage only in the gradient as TF's ApplyFtrlV2):
    g_shrink   = grad + 2 * l2_shrinkage * var
    accum_new  = accum + grad ** 2
    linear    += g_shrink - (accum_new ** -lr_power - accum ** -lr_power) / lr * var
    quadratic  = accum_new ** -lr_power / lr + 2 * l2
    var        = (sign(linear) * l1 - linear) / quadratic  if |linear| > l1  else 0
tfteach builds the step from ordinary ops (no fused ApplyFtrl kernel): every new value
is computed from the old ones before any of the three variables is assigned.
"""
from tfteach.framework import convert
from tfteach.framework import graph as graph_lib
from tfteach.ops import init_ops, state_ops
from tfteach.ops.cast_ops import cast
from tfteach.ops.dependency_ops import group
from tfteach.train import optimizer

__all__ = ["FtrlOptimizer"]


class FtrlOptimizer(optimizer.Optimizer):
    """FTRL-Proximal with L1/L2 regularization (TF 1.15's arguments and checks)."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0):
        super().__init__(use_locking, name)
        if initial_accumulator_value < 0.0:
            raise ValueError("initial_accumulator_value %f needs to be positive or zero"
                             % initial_accumulator_value)
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero"
                             % learning_rate_power)
        if l1_regularization_strength < 0.0:
            raise ValueError("l1_regularization_strength %f needs to be positive or zero"
                             % l1_regularization_strength)
        if l2_regularization_strength < 0.0:
            raise ValueError("l2_regularization_strength %f needs to be positive or zero"
                             % l2_regularization_strength)
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive"
                             " or zero" % l2_shrinkage_regularization_strength)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accum",
                                                    self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._hyper = {name: convert.convert_to_tensor(self._call_if_callable(value),
                                                       name=name)
                       for name, value in (("learning_rate", self._learning_rate),
                                           ("l1_regularization_strength", self._l1),
                                           ("l2_regularization_strength", self._l2),
                                           ("learning_rate_power", self._learning_rate_power),
                                           ("l2_shrinkage_regularization_strength",
                                            self._l2_shrinkage))}

    def _apply_dense(self, grad, var):
        import tfteach as tf
        dtype = var.dtype.base_dtype
        lr, l1, l2, lr_power, shrink = (cast(self._hyper[k], dtype) for k in (
            "learning_rate", "l1_regularization_strength", "l2_regularization_strength",
            "learning_rate_power", "l2_shrinkage_regularization_strength"))
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        with tf.name_scope("ApplyFtrl"):
            old_var, old_accum, old_linear = (tf.identity(t) for t in (var, accum, linear))
            grad_shrink = grad + 2.0 * shrink * old_var
            new_accum = old_accum + tf.square(grad)
            new_linear = old_linear + grad_shrink - (
                tf.pow(new_accum, -lr_power) - tf.pow(old_accum, -lr_power)) / lr * old_var
            quadratic = tf.pow(new_accum, -lr_power) / lr + 2.0 * l2
            new_var = tf.where(tf.abs(new_linear) > l1,
                               (tf.sign(new_linear) * l1 - new_linear) / quadratic,
                               tf.zeros_like(new_linear))
            graph = graph_lib.get_default_graph()
            with graph.control_dependencies([new_var, new_linear, new_accum]):
                return group(state_ops.assign(var, new_var, use_locking=self._use_locking),
                             state_ops.assign(accum, new_accum,
                                              use_locking=self._use_locking),
                             state_ops.assign(linear, new_linear,
                                              use_locking=self._use_locking))
