"""Dataset functions traced into graphs, as TF's `StructuredFunctionWrapper` does.

`dataset.map(fn)` does not call `fn` on values: it calls it once, at build time, on
placeholders standing for one element, inside a `FunctionGraph` of its own. The ops
`fn` creates land in that graph (TF's function library; `%%tfgraph` can draw it:
`Dataset.traced_functions`). A tensor of the outer graph that `fn` uses (a constant, a
placeholder, a variable) is *captured*: the function graph gets a placeholder for it,
and the outer tensor becomes an input of the dataset op, so its value is read when the
iterator is initialised, as in TensorFlow.

At run time a `FunctionRunner` (one per initialisation of an iterator, made by the
dataset op's kernel) runs the function graph with tfteach's executor, element by
element: a private Session on the function graph and one Plan. A random op in `fn` has
its own seeded generator in that Session, so its sequence starts again with each
iterator, as TF instantiates a function's kernels per iterator (checked against TF:
re-initialising gives the same numbers again; the epochs of a `repeat` after the `map`
continue the sequence).
"""
import numpy as np

from tfteach.framework import graph as graph_lib
from tfteach.framework import convert, dtypes
from tfteach.framework.tensor import Tensor
from tfteach.data import sparse, structure

__all__ = ["FunctionGraph", "TracedFunction", "trace", "FunctionRunner"]


class FunctionGraph(graph_lib.Graph):
    """The graph of one traced dataset function (TF's FuncGraph)."""

    def __init__(self, name, outer_graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.seed = outer_graph.seed         # TF: functions inherit the graph seed
        self.captures = {}                   # outer tensor -> its placeholder here

    @property
    def building_function(self):
        return True

    def captures_from(self, graph):
        """True for the graphs around this function (whose tensors it may capture)."""
        outer = self.outer_graph
        while True:
            if graph is outer:
                return True
            if not outer.building_function or not hasattr(outer, "outer_graph"):
                return False        # a plain graph, or a tf.function trace (no captures)
            outer = outer.outer_graph

    def capture(self, tensor):
        """The placeholder standing for outer `tensor` in this function."""
        if tensor.graph is not self.outer_graph and self.outer_graph.building_function:
            tensor = self.outer_graph.capture(tensor)     # through the enclosing function
        placeholder = self.captures.get(tensor)
        if placeholder is None:
            from tfteach.ops.constant_op import placeholder as make_placeholder
            with self.as_default(), self.control_dependencies(None):
                placeholder = make_placeholder(tensor.dtype.base_dtype, tensor.shape,
                                               name="captured/" + tensor.op.name)
            self.captures[tensor] = placeholder
        return placeholder

    def _create_op(self, op_type, inputs, attrs=None, name=None, control_inputs=()):
        for t in inputs:
            if t.graph is not self and not self.captures_from(t.graph):
                raise ValueError("Tensor %s must be from the same graph as the function %s "
                                 "(or a graph around it)." % (t, self.name))
        inputs = [self.capture(t) if t.graph is not self else t for t in inputs]
        control_inputs = [c for c in control_inputs if c.graph is self]
        return super()._create_op(op_type, inputs, attrs, name, control_inputs)

    def __repr__(self):
        return "<tfteach FunctionGraph %r>" % self.name


class TracedFunction:
    """A traced dataset function: its graph, argument placeholders, outputs and the
    structure of what it returned (`output_structure` of Specs, or a Dataset)."""

    def __init__(self, graph, arguments, outputs, argument_specs, output_structure,
                 returned_dataset):
        self.graph = graph
        self.arguments = arguments              # placeholders, flat (3 per sparse arg)
        self.outputs = outputs                  # tensors of the graph, flat (idem)
        self.argument_specs = argument_specs    # the element's flat Specs
        self.output_structure = output_structure
        self.returned_dataset = returned_dataset  # flat_map/interleave: the Dataset

    @property
    def name(self):
        return self.graph.name

    @property
    def captured(self):
        """The outer tensors the function uses, in the order the runner feeds them."""
        return list(self.graph.captures)

    def __str__(self):
        return self.graph.name


def _call(fn, args, element_structure):
    # TF 1.15 (`_should_unpack_args`): a plain tuple element is passed as arguments,
    # anything else (a dict, a namedtuple, one tensor) as one argument.
    if type(element_structure) is tuple:
        return fn(*args)
    return fn(args)


def trace(fn, name, element_structure, outer_graph, returns_dataset=False):
    """Traces `fn` on one element of structure `element_structure` (Specs)."""
    from tfteach.ops.constant_op import placeholder
    graph = FunctionGraph(name, outer_graph)
    with graph.as_default(), graph.device("/cpu:0"):
        specs = structure.flatten(element_structure)
        # TF's function tracing names the placeholders of `wrapper_fn(*args)` args_0, ...
        arguments = [placeholder(dtype, shape, name="args_%d" % i) for i, (dtype, shape)
                     in enumerate(sparse.graph_signature(specs))]
        components = sparse.from_tensors(specs, arguments, known_shapes_as_constants=True)
        result = _call(fn, structure.pack(element_structure, components), element_structure)
        if returns_dataset:
            from tfteach.data.dataset_ops import Dataset
            if not isinstance(result, Dataset):
                raise TypeError("`map_func` must return a `Dataset` object. Got %s"
                                % type(result))
            return TracedFunction(graph, arguments, [result._variant], specs, None, result)
        if isinstance(result, list):
            # TF 1.15: a returned list is a tuple of components, not one stacked tensor.
            result = tuple(result)
        outputs_structure = structure.map_structure(
            lambda v: v if isinstance(v, (Tensor, sparse.SparseTensor))
            else convert.convert_to_tensor(v), result)
    outputs = [t for v in structure.flatten(outputs_structure) for t in sparse.to_tensors(v)]
    return TracedFunction(graph, arguments, outputs, specs,
                          structure.specs_of(outputs_structure), None)


class FunctionRunner:
    """Runs a TracedFunction for one iterator of an outer Session:
    `runner(flat_args, captured_values)` -> the flat outputs."""

    def __init__(self, traced, outer_session):
        from tfteach.runtime import executor
        from tfteach.runtime import session as session_lib
        self.traced = traced
        inner = session_lib.Session(graph=traced.graph,
                                     config=getattr(outer_session, "_config", None))
        # Not a Session of the student's: the notebook's list of open sessions and its
        # clean-up must not see it; it lives as long as the outer session's kernel state.
        session_lib._live.discard(inner)
        self._session = inner
        feeds = tuple(traced.arguments) + tuple(traced.graph.captures.values())
        self._plan = executor.Plan(inner, tuple(traced.outputs), feeds, ())
        # string arguments go in as a Session feeds them: object arrays of bytes (an
        # element's bytes scalar would become NumPy's bytes dtype in the kernels, which
        # drops trailing NUL bytes)
        self._strings = [i for i, t in enumerate(feeds) if t.dtype.base_dtype == dtypes.string]

    def __call__(self, args, captured_values):
        """The function's results for one element (component values in, out)."""
        traced = self.traced
        feeds = sparse.unpack_values(traced.argument_specs, args) + list(captured_values)
        for i in self._strings:
            feeds[i] = np.asarray(feeds[i], dtype=object)
        results = self._plan.run(feeds)
        if traced.output_structure is None:         # flat_map / interleave: a dataset
            return results
        return sparse.pack_values(structure.flatten(traced.output_structure), results)
