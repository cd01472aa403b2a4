"""`tf.train.AdamOptimizer` (Kingma & Ba, 2015), as TensorFlow computes it.

Slots "m" (`W/Adam`) and "v" (`W/Adam_1`), zeros: running averages of the gradient and
of its square. Two more variables belong to the optimizer, not to one variable:
`beta1_power` and `beta2_power` (beta1^t and beta2^t, starting at beta1 and beta2).
`ApplyAdam`, at step t:
    lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)
    m    = m + (grad - m) * (1 - beta1)
    v    = v + (grad**2 - v) * (1 - beta2)
    var -= lr_t * m / (sqrt(v) + epsilon)
Note where epsilon goes: added to sqrt(v) *after* the bias correction was folded into
lr_t, so TF's epsilon is the paper's "epsilon hat". After every update the group
multiplies beta1_power by beta1 and beta2_power by beta2.
"""
from tfteach.framework import convert
from tfteach.framework import graph as graph_lib
from tfteach.ops import training_ops
from tfteach.ops.cast_ops import cast
from tfteach.ops.dependency_ops import group
from tfteach.train import optimizer

__all__ = ["AdamOptimizer"]


class AdamOptimizer(optimizer.Optimizer):
    """Adam."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = None
        self._beta1_t = None
        self._beta2_t = None
        self._epsilon_t = None

    def _get_beta_accumulators(self):
        graph = graph_lib.get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        # Made next to the first variable by name, as TF (so every worker agrees).
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power",
                                       colocate_with=first_var)
        self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power",
                                       colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert.convert_to_tensor(self._call_if_callable(self._lr),
                                               name="learning_rate")
        self._beta1_t = convert.convert_to_tensor(self._call_if_callable(self._beta1),
                                                  name="beta1")
        self._beta2_t = convert.convert_to_tensor(self._call_if_callable(self._beta2),
                                                  name="beta2")
        self._epsilon_t = convert.convert_to_tensor(self._call_if_callable(self._epsilon),
                                                    name="epsilon")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"),
            cast(beta1_power, dtype), cast(beta2_power, dtype), cast(self._lr_t, dtype),
            cast(self._beta1_t, dtype), cast(self._beta2_t, dtype),
            cast(self._epsilon_t, dtype), grad, use_locking=self._use_locking).op

    def _finish(self, update_ops, name_scope):
        # beta^t advances once per step, after every variable used the current value.
        graph = graph_lib.get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with graph._colocate_with(beta1_power.op):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
        return group(*update_ops + [update_beta1, update_beta2], name=name_scope)
