"""`tf.Operation`: a node of the graph.

An Operation has a unique name, an op type registered in `framework.registry`, input
tensors, control inputs, attributes, a requested device, and output Tensors whose dtypes
and static shapes its type's shape function computed when it was built.
"""
from tfteach.framework.node_def import EXPORTED_PRIVATE_ATTRS, NodeDef

__all__ = ["Operation"]


class Operation:
    """A graph node, as `tf.Operation`."""

    def __init__(self, graph, op_def, name, inputs, attrs, control_inputs, device, location):
        self._graph = graph
        self._op_def = op_def
        self._name = name
        self._inputs = list(inputs)
        self._attrs = dict(attrs or {})
        self._control_inputs = list(control_inputs)
        self._device = device or ""
        self._location = location        # the student's file:line that built it
        self._id = graph._next_id()
        self._outputs = []
        self._control_outputs = []
        self._control_flow_context = graph._get_control_flow_context()

    def _set_outputs(self, specs):
        from tfteach.framework.tensor import Tensor
        self._outputs = [Tensor(self, i, dtype, shape) for i, (dtype, shape) in enumerate(specs)]
        for t in self._inputs:
            t._consumers.append(self)
        for c in self._control_inputs:
            c._control_outputs.append(self)

    # -- public API -----------------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._op_def.type

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        return tuple(self._inputs)

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def control_inputs(self):
        return list(self._control_inputs)

    @property
    def device(self):
        return self._device

    @property
    def traceback_location(self):
        """Where the student's code built this op (`SourceLocation` or None)."""
        return self._location

    @property
    def node_def(self):
        inputs = [t._as_node_def_input() for t in self._inputs]
        inputs += ["^" + c.name for c in self._control_inputs]
        return NodeDef(self._name, self.type, inputs, self._device, self._public_attrs())

    def _public_attrs(self):
        # private attrs stay inside tfteach, except those TF writes too (`_class`)
        return {k: v for k, v in self._attrs.items()
                if not k.startswith("_") or k in EXPORTED_PRIVATE_ATTRS}

    def colocation_groups(self):
        """The colocation groups of this op (`loc:@name` entries, as bytes): those of its
        `_class` attr, or its own name's."""
        groups = [g if isinstance(g, bytes) else g.encode("utf-8")
                  for g in self._attrs.get("_class") or ()]
        groups = [g for g in groups if g.startswith(b"loc:@")]
        return groups or [("loc:@%s" % self._name).encode("utf-8")]

    def get_attr(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError("No attr named '%s' in NodeDef:\n%s" % (name, self.node_def)) from None

    def values(self):
        return tuple(self._outputs)

    def run(self, feed_dict=None, session=None):
        """`sess.run(self)` in the given or the default session."""
        from tfteach.runtime import session as session_lib
        session_lib.run_in_session(self, feed_dict, session, what="operation")

    def _add_control_input(self, op):
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)

    def _as_graph_element(self):
        return self

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self.type)

    def __str__(self):
        return str(self.node_def)
