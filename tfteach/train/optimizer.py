"""`tf.train.Optimizer`: the base class of every TF1 optimizer.

`opt.minimize(loss)` is two steps, each usable on its own:
    compute_gradients(loss)  -> [(gradient tensor, variable), ...]   (tf.gradients)
    apply_gradients(pairs)   -> one op that updates every variable once
`apply_gradients` builds, in this order (names as TensorFlow's):
    slots          per variable, e.g. `W/Momentum` (created outside any control
                   dependency or loop, like every variable)
    <Name>/...     the hyper-parameters as tensors (`Momentum/learning_rate`, ...)
    <Name>/update_W/ApplyMomentum   one fused update op per variable
    <Name>         a NoOp grouping the updates: the op `sess.run` runs to train
With `global_step`, the group is `<Name>/update` and the op returned is `<Name>`, an
AssignAdd of 1 to global_step that runs after every update. The returned op joins the
TRAIN_OP collection. Subclasses provide `_create_slots`, `_prepare`, `_apply_dense`.
"""
from tfteach.framework import convert, dtypes
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.framework import graph_functions
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import state_ops, variables
from tfteach.ops.dependency_ops import group
from tfteach.train import slot_creator
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["Optimizer"]


def _var_key(var):
    """Slots are looked up by (graph, variable name), as TensorFlow does; an eager
    variable by its unique key, since eager names need not be unique (TF's `_unique_id`)."""
    if hasattr(var, "_eager_tensor") and hasattr(var, "_key"):
        return var._key
    return (var.op.graph, var.op.name)


def _init_scope():
    """Variables (slots, beta1_power) are built outside control dependencies and loops."""
    return variables._InitScope(graph_lib.get_default_graph())


class _RefVariableProcessor:
    """How a TF1 ref variable is differentiated (its ref tensor) and updated."""

    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v._ref()

    def update_op(self, optimizer, g):
        update_op = optimizer._apply_dense(g, self._v)
        if self._v.constraint is not None:
            with graph_lib.get_default_graph().control_dependencies([update_op]):
                return self._v.assign(self._v.constraint(self._v))
        return update_op


class _TensorProcessor:
    """A plain tensor: gradients can be computed for it, but it cannot be updated."""

    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v

    def update_op(self, optimizer, g):
        raise NotImplementedError("Trying to update a Tensor ", self._v)


def _get_processor(v):
    if isinstance(v, variables.Variable):
        return _RefVariableProcessor(v)
    if isinstance(v, Tensor):
        return _TensorProcessor(v)
    raise NotImplementedError("Trying to optimize unsupported type ", v)


def _to_gradient(g):
    """A gradient as a Tensor (tfteach has no IndexedSlices: gradients are dense)."""
    try:
        g = convert.convert_to_tensor(g)
    except (TypeError, ValueError):
        raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or "
                        "None: %s" % (g,)) from None
    if not isinstance(g, Tensor):
        raise TypeError("Gradient must be a Tensor, IndexedSlices, or None: %s" % (g,))
    return g


class Optimizer:
    """Base class for optimizers: `tf.train.Optimizer(use_locking, name)`."""

    # Values of `gate_gradients`: how much of the backward pass must finish first.
    GATE_NONE = 0     # each gradient is used as soon as it is computed
    GATE_OP = 1       # an op's input gradients are all computed before any is used
    GATE_GRAPH = 2    # every gradient is computed before any variable is updated

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}            # slot name -> {var key: slot variable}
        self._non_slot_dict = {}    # (name, graph) -> variable (Adam's beta1_power)

    def get_name(self):
        return self._name

    # -- the two steps ---------------------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """compute_gradients + apply_gradients: the op one training step runs."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                "not support gradients, between variables %s and loss %s."
                % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """[(d loss / d v, v) for v in var_list] (default: the trainable variables).

        A gradient is None where `loss` does not depend on the variable.
        """
        if callable(loss):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP,
                                  Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not %s"
                             % gate_gradients)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = (variables.trainable_variables() + graph_lib.get_default_graph()
                        .get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = _flatten(var_list)
        processors = [_get_processor(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [p.target() for p in processors]
        from tfteach.ops import gradients_impl      # written alongside; imported when used
        grads = gradients_impl.gradients(
            loss, var_refs, grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            from tfteach.ops.dependency_ops import tuple as tuple_op
            grads = tuple_op(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """One op that applies each gradient to its variable (and bumps global_step)."""
        grads_and_vars = tuple(grads_and_vars)      # iterated more than once
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                g = _to_gradient(g)
            converted.append((g, v, _get_processor(v)))
        var_list = [v for g, v, _ in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s."
                             % ([str(v) for _, v, _ in converted],))
        with _init_scope():
            self._create_slots(var_list)
        graph = graph_lib.get_default_graph()
        update_ops = []
        with name_scope(name, self._name) as name:
            self._prepare()
            for grad, var, processor in converted:
                if grad is None:
                    continue
                # the update ops sit with their variable (`_class: ["loc:@w"]`), as TF's
                with name_scope("update_" + var.op.name), graph._colocate_with(var.op):
                    update_ops.append(processor.update_op(self, grad))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]), \
                        graph._colocate_with(global_step.op):
                    apply_updates = state_ops.assign_add(global_step, 1, name=name)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_op = graph.get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_op:
                train_op.append(apply_updates)
            return apply_updates

    # -- slots ------------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot variable `name` ("momentum", "m", ...) of `var`, or None."""
        named_slots = self._slots.get(name, None)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var), None)

    def get_slot_names(self):
        """The names of the slots this optimizer creates, sorted (e.g. ['m', 'v'])."""
        return sorted(self._slots.keys())

    def variables(self):
        """Every variable this optimizer made in the current graph, sorted by name."""
        current_graph = graph_lib.get_default_graph()
        found = [v for v in self._non_slot_variables() if v.op.graph is current_graph]
        for variable_dict in self._slots.values():
            found.extend(slot for slot in variable_dict.values()
                         if slot.op.graph is current_graph)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_zeros_slot(var, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot(var, val, op_name)
        return named_slots[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        named_slots = self._slot_dict(slot_name)
        if _var_key(var) not in named_slots:
            named_slots[_var_key(var)] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named_slots[_var_key(var)]

    # -- variables that belong to no one variable (Adam's beta1_power) ----------------------
    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        key = (name, _graph_key(colocate_with.graph))
        v = self._non_slot_dict.get(key, None)
        if v is None:
            with graph_functions.colocate_with(colocate_with):
                v = variables.Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, _graph_key(graph)), None)

    def _non_slot_variables(self):
        return self._non_slot_dict.values()

    # -- tf.train.Checkpoint (train/object_checkpoint.py), as TF's Trackable optimizer ----------
    def _checkpoint_dependencies(self):
        """The non-slot variables, by name (Adam's `beta1_power`): the optimizer's
        children in an object-based checkpoint."""
        return [(name, v) for (name, _), v in self._non_slot_dict.items()]

    def _checkpoint_slots(self, candidates):
        """[(slot name, variable, slot variable)] for the `candidates` that have slots,
        slot names sorted: TF's `.OPTIMIZER_SLOT` entries, in TF's order."""
        found = []
        for name in self.get_slot_names():
            for var in candidates:
                slot = self.get_slot(var, name)
                if slot is not None:
                    found.append((name, var, slot))
        return found

    def _restore_checkpoint_slot(self, var, slot_name, value):
        """Sets (creating it first, as TF does, if no step made it yet) a slot of `var`."""
        slot = self.get_slot(var, slot_name)
        if slot is None:
            with _init_scope():
                slot = self._zeros_slot(var, slot_name, self._name)
        slot.assign(value)
        return slot

    def _restore_checkpoint_dependency(self, name, value):
        """Creates a non-slot variable restored before the first step made it (the
        first step then finds it, with the saved value)."""
        with _init_scope():
            v = variables.Variable(value, name=name, trainable=False)
        self._non_slot_dict[(name, _graph_key(graph_lib.get_default_graph()))] = v
        return v

    # -- checks and hooks for subclasses ------------------------------------------------------
    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                # TF 1.15 lists its set in this order (bfloat16 has no tfteach dtype).
                raise ValueError("Invalid type %r for %s, expected: [tf.float32, tf.float64, "
                                 "tf.float16, tf.bfloat16]." % (dtype, t.name))

    def _create_slots(self, var_list):
        """Creates the slot variables of `var_list` (none by default)."""

    def _prepare(self):
        """Creates the hyper-parameter tensors (inside the optimizer's name scope)."""

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _finish(self, update_ops, name_scope):
        """The op that runs every update: a group named after the optimizer."""
        return group(*update_ops, name=name_scope)

    def _call_if_callable(self, param):
        """Hyper-parameters may be given as functions returning a value or tensor."""
        return param() if callable(param) else param


def _flatten(var_list):
    if isinstance(var_list, (list, tuple)):
        return [x for v in var_list for x in _flatten(v)]
    if isinstance(var_list, dict):
        return [x for k in sorted(var_list) for x in _flatten(var_list[k])]
    return [var_list]


def _graph_key(graph):
    """The graph a non-slot variable (Adam's beta1_power) belongs to; eagerly there is
    one set of them, whatever graph the caller names (docs/eager.md)."""
    return None if executing_eagerly() else graph
