"""`tf.gradients`: builds the ops that compute derivatives, in the graph, under `gradients/`.

Nothing is differentiated numerically or "on the fly": `tf.gradients(ys, xs)` adds new
ops to the graph (TF 1.15's algorithm, `gradients_impl._GradientsHelper`):

1. Find the ops *between* xs and ys: reachable forward from the xs over float tensors
   (integer and bool tensors carry no gradient) and backward from the ys.
2. Seed each y with `grad_ys` or ones (`gradients/Fill` of `gradients/Shape`).
3. Visit the between ops from the ys back to the xs, each once all ops using its
   outputs are done. Several gradients arriving at one output are summed
   (`gradients/AddN`); then the op type's registered gradient function,
   `fn(op, *output_grads) -> [grad or None per input]`, builds its ops in the name
   scope `gradients/<op name>_grad`.
4. Each x's gradient is what arrived at it: None if no path joins it to the ys.
"""
import collections
import threading

from tfteach.framework import convert, dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import fill_ops, shape_ops
from tfteach.ops.aggregate_ops import accumulate_n, add_n
from tfteach.ops.constant_op import constant, identity
from tfteach.ops.stop_gradient_op import stop_gradient  # noqa: F401 (tf.stop_gradient)
from tfteach.ops import op_builder
from tfteach.framework.eager_mode import executing_eagerly

__all__ = ["gradients", "stop_gradient", "AggregationMethod", "UnconnectedGradients",
           "leads_to_xs"]


class AggregationMethod:
    """How several gradients arriving at one tensor are summed (`tf.AggregationMethod`)."""
    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients:
    """What `tf.gradients` returns for an x the ys do not depend on."""
    NONE = "none"
    ZERO = "zero"


# Output dtypes that carry gradients (TF's `IsTrainable`: the floating and complex types;
# tfteach has no bfloat16).
_TRAINABLE = frozenset([dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                        dtypes.complex128])

# Op type -> fn(op, index) building the zero gradient of an unused output. Control flow
# registers Switch here (a Switch's zeros must be built inside its branch).
ZEROS_LIKE_OUTPUT = {}


def is_trainable(tensor):
    return tensor.dtype.base_dtype in _TRAINABLE


# The between ops of the walk whose gradient function is running, per thread (a
# gradient function may call tf.gradients itself: the loop's body gradient).
_WALK = threading.local()


def leads_to_xs(tensor):
    """Whether the `tf.gradients` call now running a gradient function wants the
    gradient of `tensor`, an input of that function's op: its op lies between the xs and
    the ys. (Outside a walk: True.) For an op whose gradient function builds a whole
    subgraph per input (a while loop's, ops/while_grad.py) where TF 1.15 builds the
    gradient ops of between ops only: the loop's input sequence fed by a placeholder
    gets no gradient loop work when only the weights are asked for."""
    between = getattr(_WALK, "between_ops", None)
    return between is None or tensor.op in between


def _as_list(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


# -- which ops lie between xs and ys -------------------------------------------------------
def _reached_ops(from_ops):
    """Ops reachable forward from `from_ops` along tensors that can carry a gradient."""
    reached = set()
    queue = collections.deque(from_ops)
    while queue:
        op = queue.popleft()
        if op not in reached:
            reached.add(op)
            for output in op._outputs:
                if is_trainable(output):
                    queue.extend(output._consumers)
    return reached


def _pending_count(to_ops, from_ops):
    """(to_ops reachable from from_ops, {op: number of between ops using it}, between ops)."""
    reached = _reached_ops(from_ops)
    reachable_to_ops = set(op for op in to_ops if op in reached)
    between_ops, between_list = set(), []
    queue = collections.deque(to_ops)
    while queue:
        op = queue.popleft()
        if op in reached:
            between_ops.add(op)
            between_list.append(op)
            reached.remove(op)          # visit each op once
            queue.extend(t.op for t in op._inputs)
    pending = collections.defaultdict(int)
    for op in between_list:
        for t in op._inputs:
            if t.op in between_ops:
                pending[t.op] += 1
    return reachable_to_ops, pending, between_ops


def _stop_ops(from_ops, stop_gradient_ops, pending):
    """xs ops fed by no between op (nothing to do past them), and the stop_gradients."""
    stop = set(op for op in from_ops if all(pending[t.op] <= 0 for t in op._inputs))
    stop.update(stop_gradient_ops)
    return stop


# -- seeds, aggregation, zeros ---------------------------------------------------------------
def _default_grad_ys(grad_ys, ys):
    """`grad_ys` checked and named `grad_ys_i`; ones (`Fill`) where none was given."""
    if len(grad_ys) != len(ys):
        raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
    result = []
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys)):
        if grad_y is None:
            if y.dtype.is_complex:
                raise TypeError("Gradients of complex tensors must set grad_ys (y.dtype = %r)"
                                % y.dtype)
            result.append(fill_ops.fill(shape_ops.shape(y), constant(
                1, dtype=y.dtype.base_dtype, name="grad_ys_%d" % i)))
            continue
        grad_y = convert.convert_to_tensor(grad_y, name="grad_y")
        if y.dtype.is_floating or y.dtype.is_integer:
            if not grad_y.dtype.is_floating and not grad_y.dtype.is_integer:
                raise TypeError("Gradient type %s generated for real or integer-valued tensor "
                                "%s with type %s must be real or integer"
                                % (grad_y.dtype.base_dtype.name, y, y.dtype.base_dtype.name))
        elif not y.dtype.is_complex:
            raise TypeError("Tensor %s with type %s must be numeric to obtain a default "
                            "gradient" % (y, y.dtype.base_dtype.name))
        result.append(identity(grad_y, name="grad_ys_%d" % i))
    return result


def _aggregate(grad_list, op, method):
    """One gradient from all those that reached one output (None if none did)."""
    if not grad_list:
        return None
    if len(grad_list) == 1:
        return grad_list[0]
    if method == AggregationMethod.EXPERIMENTAL_TREE:
        with name_scope(op.name + "_gradient_sum"):
            total = grad_list[0]
            for g in grad_list[1:]:
                total = add_n([total, g])
            return total
    if (method == AggregationMethod.EXPERIMENTAL_ACCUMULATE_N and len(grad_list) > 2
            and all(g.shape.is_fully_defined() for g in grad_list)):
        return accumulate_n(grad_list)
    return add_n(grad_list)


def _zeros_like_output(op, index):
    """The gradient of an output nobody used: zeros (TF's ZerosLikeOutsideLoop)."""
    special = ZEROS_LIKE_OUTPUT.get(op.type)
    if special is not None:
        return special(op, index)
    return fill_ops.zeros_like(op._outputs[index], optimize=False)


def _gradient_function(op):
    """The op's gradient function; None if it has none (integer ops, StopGradient)."""
    op_def = op._op_def
    if not op_def.differentiable:
        return None
    if op_def.gradient is None:
        raise LookupError("No gradient defined for operation '%s' (op type: %s)"
                          % (op.name, op.type))
    return op_def.gradient


def _set_input_grads(op, in_grads, grads_of):
    """Records each input's gradient (given the input's static shape) for its producer."""
    for i, (t_in, g) in enumerate(zip(op._inputs, in_grads)):
        if g is None:
            continue
        if isinstance(g, Tensor):
            try:
                g.set_shape(t_in.shape)
            except ValueError:
                raise ValueError(
                    "Incompatible shapes between op input and calculated input gradient.  "
                    "Forward operation: %s.  Input index: %d. Original input shape: %s.  "
                    "Calculated input gradient shape: %s" % (op.name, i, t_in.shape, g.shape)
                ) from None
        grads_of(t_in.op)[t_in.value_index].append(g)


# -- the public function ----------------------------------------------------------------------
def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """The symbolic derivatives of sum(ys) with respect to each x in xs, as `tf.gradients`.

    Returns a list with one Tensor (or None) per x. The gradient ops are new ops in the
    graph, under the name scope `gradients/` (`gradients_1/` for a second call).
    """
    if executing_eagerly():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    ys = _as_list(ys)
    xs = _as_list(xs)
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if aggregation_method is None:
        aggregation_method = AggregationMethod.DEFAULT
    if aggregation_method not in (AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError("Invalid aggregation_method specified %s." % aggregation_method)
    unconnected = getattr(unconnected_gradients, "value", unconnected_gradients)
    if unconnected not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError("Unknown value for unconnected_gradients: %r" % unconnected_gradients)
    values = ys + xs + stop_gradients + [g for g in grad_ys if g is not None]
    graph = op_builder.graph_of(values)
    with graph.as_default(), name_scope(name, "gradients", values):
        ys = [convert.convert_to_tensor(y, name="y") for y in ys]
        # A Variable means its ref tensor (VariableV2's output): the gradient flows to it
        # through the `read` snapshot every expression uses.
        xs = [convert.convert_to_tensor(x, name="x", as_ref=True) for x in xs]
        stop_gradients = [convert.convert_to_tensor(t) for t in stop_gradients]
        grad_ys = _default_grad_ys(grad_ys, ys)
        grads = _backpropagate(ys, xs, grad_ys, stop_gradients, gate_gradients,
                               aggregation_method)
        return [_result_for(x, grads, unconnected) for x in xs]


def _result_for(x, grads, unconnected):
    op_grads = grads.get(x.op)
    grad = None if op_grads is None else op_grads[x.value_index]
    if isinstance(grad, list):      # x's op was never visited: aggregate what arrived
        grad = _aggregate(grad, x.op, AggregationMethod.DEFAULT)
    if grad is None and unconnected == UnconnectedGradients.ZERO:
        return fill_ops.zeros_like(x)
    return grad


def _backpropagate(ys, xs, grad_ys, stop_gradients, gate_gradients, aggregation_method):
    """The walk from the ys back to the xs; returns {op: [gradient per output]}."""
    to_ops = [t.op for t in ys]
    from_ops = [t.op for t in xs]
    reachable_to_ops, pending, between_ops = _pending_count(to_ops, from_ops)
    grads = {}

    def grads_of(op):
        if op not in grads:
            grads[op] = [[] for _ in op._outputs]
        return grads[op]

    for y, grad_y in zip(ys, grad_ys):
        grads_of(y.op)[y.value_index].append(grad_y)

    queue = collections.deque()
    queued = set()
    for op in to_ops:
        # An op whose output gradient also depends on another y waits for it.
        if pending[op] == 0 and op not in queued and op in reachable_to_ops:
            queued.add(op)
            queue.append(op)
    stop_ops = _stop_ops(from_ops, [t.op for t in stop_gradients], pending)

    while queue:
        op = queue.popleft()
        out_grads = [_aggregate(g, op, aggregation_method) for g in grads_of(op)]
        grads[op] = out_grads
        has_out_grads = any(g is not None for g in out_grads)
        grad_fn = None
        if has_out_grads and op not in stop_ops:
            grad_fn = _gradient_function(op)
        if grad_fn is not None:
            for i, g in enumerate(out_grads):
                # An unused output's gradient is zero (if it is a float tensor at all).
                if g is None and is_trainable(op._outputs[i]):
                    out_grads[i] = _zeros_like_output(op, i)
            with name_scope(op.name + "_grad"):
                in_grads = _as_list(_in_walk(between_ops, grad_fn, op, out_grads))
                _check_count(in_grads, op)
                if gate_gradients:
                    in_grads = _gated(in_grads, op, between_ops)
        else:
            in_grads = [None] * len(op._inputs)
        _set_input_grads(op, in_grads, grads_of)
        for t_in in op._inputs:
            pending[t_in.op] -= 1
            if pending[t_in.op] == 0:
                queue.append(t_in.op)
    return grads


def _in_walk(between_ops, grad_fn, op, out_grads):
    """grad_fn(op, *out_grads), with `leads_to_xs` answering for this walk."""
    outer, _WALK.between_ops = getattr(_WALK, "between_ops", None), between_ops
    try:
        return grad_fn(op, *out_grads)
    finally:
        _WALK.between_ops = outer


def _gated(in_grads, op, between_ops):
    """TF's gate_gradients: the op's input gradients all become available together.

    Only the gradients that lead on to the xs are gated (TF gates all of them): a
    gradient nobody uses, e.g. for the input images of the first layer, is then never
    computed, as the executor runs only what the fetches need.
    """
    from tfteach.ops.dependency_ops import tuple as tuple_op
    needed = [i for i, (g, t) in enumerate(zip(in_grads, op._inputs))
              if g is not None and t.op in between_ops]
    if len(needed) < 2:
        return in_grads
    gated = tuple_op([in_grads[i] for i in needed])
    in_grads = list(in_grads)
    for i, g in zip(needed, gated):
        in_grads[i] = g
    return in_grads


def _check_count(in_grads, op):
    if len(in_grads) != len(op._inputs):
        raise ValueError("Num gradients %d generated for op %s do not match num inputs %d"
                         % (len(in_grads), op.node_def, len(op._inputs)))
