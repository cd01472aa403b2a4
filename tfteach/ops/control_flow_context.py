"""What `tf.cond` branches and `tf.while_loop` bodies share: a control-flow context.

While a branch or a loop body is being built, the graph's control-flow context is set to
a context object. The graph asks it about every new op twice: `process_inputs(inputs,
op_name)` before the op exists (a cond routes outside tensors through a Switch there, a
loop records them as captured), and `add_op(op)` after. Each op remembers the context it
was built in (`op._control_flow_context`); contexts nest through `outer_context`.
"""
import contextlib

__all__ = ["ControlFlowContext", "op_in_context", "building_in", "reads_session_state"]


def op_in_context(op, context):
    """Whether `op` was built inside `context` or inside a context nested in it."""
    inner = op._control_flow_context
    while inner is not None:
        if inner is context:
            return True
        inner = inner.outer_context
    return False


@contextlib.contextmanager
def building_in(graph, context):
    """New ops of `graph` are built in `context` (None: outside any cond or loop)."""
    saved = graph._get_control_flow_context()
    graph._set_control_flow_context(context)
    try:
        yield
    finally:
        graph._set_control_flow_context(saved)


def reads_session_state(op):
    """A variable op (VariableV2): no inputs, and its output is a reference (`_ref`).

    A reference names the variable, not a value, so it is used directly inside a branch
    or a loop instead of being passed in as a value: an assignment in a loop body
    changes the variable itself, and every iteration reads the latest value.
    """
    return not op._inputs and any(t.dtype.is_ref_dtype for t in op._outputs)


class ControlFlowContext:
    """Base of CondContext and WhileContext: nesting and entering."""

    def __init__(self, graph):
        self.graph = graph
        self.outer_context = graph._get_control_flow_context()

    def contains(self, op):
        return op_in_context(op, self)

    def entered(self):
        """`with context.entered():` builds the ops of the block in this context."""
        return building_in(self.graph, self)

    def process_inputs(self, inputs, op_name):
        return inputs

    def add_op(self, op):
        """`op` was just built in this context."""
        self.add_inner_op(op)

    def add_inner_op(self, op):
        """`op` was built in this context or in one nested in it (a cond in a loop)."""
        if self.outer_context is not None:
            self.outer_context.add_inner_op(op)
