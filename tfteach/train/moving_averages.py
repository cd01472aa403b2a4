"""`tf.train.ExponentialMovingAverage`: shadow copies that follow variables slowly.

`ema.apply([v])` creates, once per variable, a non-trainable *shadow* variable named
`v/ExponentialMovingAverage` (a slot of v, starting at v's initial value) and returns
one op that, each time it runs, moves every shadow towards its variable:
    shadow -= (1 - decay) * (shadow - variable)
With `num_updates` (e.g. the global step), the decay is small at first so the shadow
catches up quickly:  decay = min(decay, (1 + num_updates) / (10 + num_updates)).
`ema.average(v)` is the shadow variable; the variable itself joins the
MOVING_AVERAGE_VARIABLES collection. See docs/training.md for a worked example.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.framework.graph_functions import name_scope
from tfteach.ops import init_ops, state_ops, variable_scope, variables
from tfteach.ops.cast_ops import cast
from tfteach.ops.dependency_ops import group
from tfteach.train import slot_creator

__all__ = ["ExponentialMovingAverage", "assign_moving_average"]

_FLOAT_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (1 - decay) * (variable - value); returns the updated ref tensor.

    With zero_debias, `variable` becomes the average of a hidden one that started at
    zero (`variable/biased`), divided by 1 - decay^t to remove that start's pull --
    as Adam corrects its moments.
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert.convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = cast(decay, variable.dtype.base_dtype)
        if zero_debias:
            update_delta = _zero_debias(variable, value, decay)
        else:
            update_delta = (variable - value) * decay
        return state_ops.assign_sub(variable, update_delta, name=scope)


def _zero_debias(unbiased_var, value, decay):
    """The delta that moves `unbiased_var` to biased / (1 - decay^t) (TF 1.15)."""
    import tfteach as tf
    with variable_scope.variable_scope(unbiased_var.op.name,
                                       values=[unbiased_var, value, decay]) as scope:
        def unique(name):
            if variable_scope.get_variable_scope().reuse:
                return name
            taken = [x.op.name for x in variable_scope.get_variable_scope().global_variables()]
            full_name = variable_scope.get_variable_scope().name + "/" + name
            if full_name not in taken:
                return name
            idx = 1
            while full_name + ("_%d" % idx) in taken:
                idx += 1
            return name + ("_%d" % idx)
        dtype = unbiased_var.dtype.base_dtype
        biased_var = variable_scope.get_variable(
            unique("biased"), shape=unbiased_var.get_shape(), dtype=dtype,
            initializer=init_ops.zeros_initializer(), trainable=False)
        local_step = variable_scope.get_variable(
            unique("local_step"), shape=[], dtype=dtype,
            initializer=init_ops.zeros_initializer(), trainable=False)
        update_biased = state_ops.assign_sub(biased_var, (biased_var - value) * decay,
                                             name=scope.name)
        update_local_step = local_step.assign_add(1)
        # Read the new biased value and step: after both updates ran.
        with tf.control_dependencies([update_biased, update_local_step]):
            return unbiased_var - biased_var.read_value() / (
                1 - tf.pow(1.0 - decay, local_step.read_value()))


class ExponentialMovingAverage:
    """Maintains moving averages of variables (or tensors) with exponential decay."""

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        # id(variable or tensor) -> (it, its shadow variable): keyed by identity, as
        # TF's ObjectIdentityDictionary (TF 2's eager variables are unhashable)
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadow variables (first time) and returns the op updating them."""
        if var_list is None:
            var_list = variables.trainable_variables()
        zero_debias_true = set()      # ids of the shadows of tensors
        graph = graph_lib.get_default_graph()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOAT_DTYPES:
                raise TypeError("The variables must be half, float, or double: %s"
                                % var.name)
            if id(var) in self._averages:
                continue
            # Shadows are variables: made outside control dependencies and loops.
            with variables._InitScope(graph):
                if isinstance(var, variables.Variable):
                    avg = slot_creator.create_slot(var, var.initialized_value(), self.name)
                    # Only tf.Variables join the collection, not tensors.
                    graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slot_creator.create_zeros_slot(var, self.name)
                    if self._zero_debias:
                        zero_debias_true.add(id(avg))
            self._averages[id(var)] = (var, avg)

        with name_scope(self.name) as scope:
            decay = convert.convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                import tfteach as tf
                num_updates = cast(self._num_updates, dtypes.float32, name="num_updates")
                decay = tf.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                updates.append(assign_moving_average(avg, var, decay,
                                                     zero_debias=id(avg) in zero_debias_true))
            return group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of `var` (None if `apply` never saw it)."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var):
        """The shadow's name (without `:0`), also before `apply` made it."""
        if id(var) in self._averages:
            return self._averages[id(var)][1].op.name
        return graph_lib.get_default_graph().unique_name(
            var.op.name + "/" + self.name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{name in a checkpoint: variable}: restores each variable from its average.

        For a Saver that loads the averaged values into the model's own variables
        (evaluation with the smoothed weights); other variables map to themselves.
        """
        name_map = {}
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables()
            moving_avg_variables += variables.moving_average_variables()
        moving_avg_variables = list(dict.fromkeys(moving_avg_variables))   # dedupe, ordered
        for v in moving_avg_variables:
            name_map[self.average_name(v)] = v
        moving_avg_variable_names = {v.name for v in moving_avg_variables}
        for v in variables.global_variables():
            if v.name not in moving_avg_variable_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
