"""`tf.Graph`: the set of Operations a program builds, plus the default-graph stack.

Building a graph computes nothing. The Graph hands out unique op names exactly as
TensorFlow does (`Const`, `Const_1`, `scope_1/add`), keeps the name-scope, device and
control-dependency stacks that ops pick up when they are created, and the collections.
"""
import contextlib
import re
import threading

from tfteach.framework import device_spec, registry, source_info, tensor_shape

__all__ = ["Graph", "GraphKeys", "get_default_graph", "reset_default_graph"]

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\-/>]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


def _name_text(name):
    """A name given as bytes, as text; any other non-string is TF's TypeError (its name
    scopes match names against a regex: Python's words)."""
    if isinstance(name, bytes):
        return name.decode("utf-8")
    raise TypeError("expected string or bytes-like object, got '%s'" % type(name).__name__)


class GraphKeys:
    """Standard collection names, as `tf.GraphKeys`."""
    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


class _ControlDependencies:
    """One `with g.control_dependencies(...)` block: its ops and the ops built inside."""

    def __init__(self, control_inputs):
        self.control_inputs = control_inputs
        self.new_ops = set()


class Graph:
    """A TensorFlow computation graph, as `tf.Graph`."""

    def __init__(self):
        self._lock = threading.RLock()
        self._nodes_by_name = {}
        self._nodes_in_order = []
        self._names_in_use = {}
        self._name_stack = ""
        self._device_stack = []          # strings or functions, outermost first
        self._control_stack = []         # _ControlDependencies blocks
        self._colocation_stack = []      # ops new ops are colocated with (colocate_with)
        self._attr_scope_map = {}        # attrs every new op gets (_attr_scope)
        self._collections = {}
        self._finalized = False
        self._last_id = 0
        self._version = 0
        self._unfeedable = set()
        self._unfetchable = set()
        self._control_flow_context = None
        self.seed = None
        self._seed_offsets = {}          # for op-level seeds derived from the graph seed

    # -- identity and building ----------------------------------------------------------
    def _next_id(self):
        self._last_id += 1
        return self._last_id

    @property
    def version(self):
        return self._version

    @property
    def finalized(self):
        return self._finalized

    def finalize(self):
        """After this, adding an op raises RuntimeError (as `tf.Graph.finalize`)."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None,
                  attrs=None, op_def=None, compute_shapes=True, compute_device=True):
        """Adds an op of a registered type; `tf.Graph.create_op`'s signature."""
        # no name scope on this path: a bad name is the op's own, as TF's Operation says
        return self._create_op(op_type, list(inputs), attrs, name, via_op_library=False)

    def _create_op(self, op_type, inputs, attrs=None, name=None, control_inputs=(),
                   via_op_library=True):
        """The single place an op is born: name, device, control deps, shapes.
        `via_op_library`: built as TF's op-definition library builds ops (through a name
        scope, colocated with its reference inputs); False for the public create_op."""
        from tfteach.framework.operation import Operation
        self._check_not_finalized()
        op_def = registry.get_op_def(op_type)
        with self._lock:
            if name is None:
                name = op_type
            elif name.__class__ is not str:
                name = _name_text(name)
            if name.endswith("/"):
                name = name[:-1]              # a scope name used as an op name: verbatim
            else:
                name = self.unique_name(name)
            if not _VALID_OP_NAME.match(name):
                # TF's ops take their name through a name scope (op_def_library), which
                # checks it first: its words; a Const it makes with Graph.create_op
                words = "scope" if via_op_library and op_type != "Const" else "node"
                raise ValueError("'%s' is not a valid %s name" % (name, words))
            if name in self._nodes_by_name:
                raise ValueError("Duplicate node name in graph: '%s'" % name)
            context = self._control_flow_context
            if context is not None:
                # After naming: ops the context adds for this op's inputs are named
                # under it, as TF's `cond/add/Switch` for an input of `cond/add`.
                inputs = context.process_inputs(inputs, name)
            input_ops = {t.op for t in inputs}
            controls = self._control_inputs_for(input_ops) + [
                c for c in control_inputs if c not in input_ops]
            controls = list(dict.fromkeys(controls))
            op = Operation(self, op_def, name, inputs, attrs, controls, "",
                           source_info.caller_location())
            try:
                op._set_outputs(op_def.shape_fn(op))
            except tensor_shape.ShapeTensorError as e:
                raise ValueError(str(e)) from None
            except tensor_shape.ShapeError as e:
                shapes = ", ".join(t.shape.debug_string() for t in inputs)
                # TF's " and with computed input tensors: input[1] = <...>" part, if any.
                note = getattr(e, "input_tensors_note", "")
                raise ValueError("%s for '%s' (op: '%s') with input shapes: %s%s."
                                 % (e, name, op_type, shapes, note)) from None
            for key, value in self._attr_scope_map.items():
                op._attrs.setdefault(key, value)
            op._device = self._device_for(op)
            colocated = self._colocation_stack
            if via_op_library and op_def.ref_inputs:
                # TF's op-definition library colocates an op with the variables it takes
                # by reference (Assign, ApplyAdam): `_class: ["loc:@w"]`, w's device
                colocated = colocated + [inputs[i].op for i in op_def.ref_inputs
                                         if i < len(inputs)]
                if not self._colocation_stack:
                    op._device = ""      # colocate_with clears the device scopes
            if colocated:
                self._colocate(op, colocated)
            self._nodes_by_name[name] = op
            self._nodes_in_order.append(op)
            self._version = op._id
            for block in self._control_stack:
                block.new_ops.add(op)
            if context is not None:
                context.add_op(op)
        return op

    # -- names --------------------------------------------------------------------------
    def unique_name(self, name, mark_as_used=True):
        """`name` inside the current name scope, made unique by `_1`, `_2`, ..."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_key = name_key
            while name_key in self._names_in_use:
                name_key = "%s_%d" % (base_key, i)
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = "%s_%d" % (name, i - 1)
        return name

    def get_name_scope(self):
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope; `"a/"` re-enters scope `a` verbatim, `None`/`""` resets."""
        if name:
            if not isinstance(name, str):
                name = _name_text(name)
            regex = _VALID_SCOPE_NAME if self._name_stack else _VALID_OP_NAME
            if not regex.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
        old_stack = self._name_stack
        if not name:
            new_stack = ""
        elif name.endswith("/"):
            new_stack = name[:-1]
        else:
            new_stack = self.unique_name(name)
        self._name_stack = new_stack
        try:
            yield new_stack + "/" if new_stack else ""
        finally:
            self._name_stack = old_stack

    # -- colocation ---------------------------------------------------------------------
    @contextlib.contextmanager
    def _colocate_with(self, op, ignore_existing=False):
        """Ops created inside share `op`'s colocation groups and device (TF's
        `colocate_with`): their `_class` attr lists the groups; the device scopes of
        the outside do not apply inside, as in TF."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing "
                             "is not True")
        device_stack, self._device_stack = self._device_stack, []
        saved = self._colocation_stack
        self._colocation_stack = ([] if ignore_existing else list(saved)) + \
            ([op] if op is not None else [])
        try:
            yield
        finally:
            self._device_stack = device_stack
            self._colocation_stack = saved

    @staticmethod
    def _colocate(op, colocated):
        """`op` joins the groups of the ops in `colocated` (sorted, as TF writes them),
        and takes the device of the first that has one."""
        groups = set()
        device = None
        for other in colocated:
            groups.update(other.colocation_groups())
            if device is None and other.device:
                device = other.device
        op._attrs["_class"] = sorted(g.decode("utf-8") for g in groups)   # text, as imported
        if device is not None:
            op._device = device

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """Ops created inside get these attrs (unless they set them), as TF's
        Graph._attr_scope (a Variable's initializer takes its `_class` this way)."""
        saved = self._attr_scope_map
        self._attr_scope_map = dict(saved, **attr_map)
        try:
            yield
        finally:
            self._attr_scope_map = saved

    # -- devices --------------------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Ops created inside get this device (merged with outer scopes); None clears."""
        if isinstance(device_name_or_function, str):
            device_spec.DeviceSpec.from_string(device_name_or_function)  # validate now
        elif hasattr(device_name_or_function, "to_string"):
            device_name_or_function = device_name_or_function.to_string()
        self._device_stack.append(device_name_or_function)
        try:
            yield
        finally:
            self._device_stack.pop()

    def _device_for(self, op):
        """TF 1.15's rule: scopes apply innermost first, `tf.device(None)` stops the
        walk; a string scope fills only the fields inner scopes left unset; a device
        function sees `op.device` as the inner scopes set it and returns the device
        (kept as written, like TF: `lambda op: "/gpu:0"` gives "/gpu:0")."""
        device = ""
        for entry in reversed(self._device_stack):
            if entry is None:
                break
            if callable(entry):
                op._device = device
                result = entry(op)
                if hasattr(result, "to_string"):
                    result = result.to_string()
                device_spec.DeviceSpec.from_string(result or "")    # validate; kept verbatim
                device = result or ""
            else:
                device = device_spec.merge_device(entry, device)
        return device

    # -- control dependencies ---------------------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run after `control_inputs`; `None` clears outer blocks."""
        if self._eager_and_global():
            yield                    # eagerly, ops run in program order already
            return
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        from tfteach.framework.convert import as_op
        ops = []
        for c in control_inputs:
            try:
                c = as_op(c)
            except TypeError:
                raise TypeError("Control input must be Operation or Tensor: %s" % (c,)) from None
            if c.graph is not self:
                raise ValueError("Control input %s is not an element of this graph." % (c,))
            ops.append(c)
        block = _ControlDependencies(ops)
        self._control_stack.append(block)
        try:
            yield
        finally:
            self._control_stack.remove(block)

    def _control_inputs_for(self, input_ops):
        ret = []
        for block in self._control_stack:
            # An op whose input was built inside this block already depends on it.
            if any(op in block.new_ops for op in input_ops):
                continue
            ret.extend(c for c in block.control_inputs if c not in input_ops)
        return ret

    # -- control flow contexts (cond / while_loop) ---------------------------------------------
    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, context):
        self._control_flow_context = context

    # -- the graph as data (framework/graph_def.py) ---------------------------------------------
    def as_graph_def(self, from_version=None, add_shapes=False):
        """This graph as TensorFlow's `GraphDef` protocol buffer (see graph_def.py)."""
        from tfteach.framework.graph_def import graph_to_graph_def
        return graph_to_graph_def(self, from_version, add_shapes)

    @property
    def graph_def_versions(self):
        from tfteach.framework.graph_def import GRAPH_DEF_PRODUCER
        from tfteach.io.tf_protos import VersionDef
        return VersionDef(producer=GRAPH_DEF_PRODUCER)

    # -- lookup -----------------------------------------------------------------------------
    def get_operations(self):
        return list(self._nodes_in_order)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s."
                            % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s."
                            % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def _get_operation_or_none(self, name):
        return self._nodes_by_name.get(name)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation, Variable or name to this graph's element."""
        from tfteach.framework.operation import Operation
        from tfteach.framework.tensor import Tensor
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        temp = getattr(obj, "_as_graph_element", None)
        if temp is not None and not isinstance(obj, (Tensor, Operation)):
            obj = temp()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, types_str)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % obj)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj)
            return obj
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, types_str))

    def _element_by_name(self, name, allow_tensor, allow_operation, types_str):
        if ":" in name and allow_tensor:
            op_name, _, out = name.partition(":")
            try:
                out_n = int(out)
            except ValueError:
                raise ValueError(
                    "The name %s looks a like a Tensor name, but is not a valid one. Tensor "
                    "names must be of the form \"<op_name>:<output_index>\"." % repr(name))
            op = self._nodes_by_name.get(op_name)
            if op is None:
                raise KeyError("The name %s refers to a Tensor which does not exist. The "
                               "operation, %s, does not exist in the graph."
                               % (repr(name), repr(op_name)))
            if not 0 <= out_n < len(op._outputs):
                raise KeyError("The name %s refers to a Tensor which does not exist. The "
                               "operation, %s, exists but only has %s outputs."
                               % (repr(name), repr(op_name), len(op._outputs)))
            return op._outputs[out_n]
        if ":" in name and not allow_tensor:
            raise ValueError("Name %s appears to refer to a Tensor, not a %s."
                             % (repr(name), types_str))
        if not allow_operation:
            if name in self._nodes_by_name:
                raise ValueError(
                    "The name %s refers to an Operation, not a %s. Tensor names must be of "
                    "the form \"<op_name>:<output_index>\"." % (repr(name), types_str))
            raise ValueError(
                "The name %s looks like an (invalid) Operation name, not a %s. Tensor names "
                "must be of the form \"<op_name>:<output_index>\"." % (repr(name), types_str))
        op = self._nodes_by_name.get(name)
        if op is None:
            raise KeyError("The name %s refers to an Operation not in the graph." % repr(name))
        return op

    # -- feeding and fetching rules --------------------------------------------------------------
    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op):
        op = getattr(tensor_or_op, "op", tensor_or_op)
        return op not in self._unfetchable

    # -- collections -------------------------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, key):
        return self._collections.setdefault(key, [])

    def get_collection(self, key, scope=None):
        items = self._collections.get(key, [])
        if scope is None:
            return list(items)
        regex = re.compile(scope)
        return [item for item in items
                if getattr(item, "name", None) is not None and regex.match(item.name)]

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if isinstance(v, list)]

    def clear_collection(self, name):
        self._check_not_finalized()
        self._collections.pop(name, None)

    # -- default graph ---------------------------------------------------------------------------
    def _eager_and_global(self):
        """True while ops execute eagerly and this is the global default graph: its
        scopes must then leave eager execution on (docs/eager.md)."""
        from tfteach.framework.eager_mode import STATE as eager
        return eager.enabled and not _default_graph_stack.graphs and self is _global_default_graph

    @contextlib.contextmanager
    def as_default(self):
        if self._eager_and_global():
            # Eagerly, op functions' `get_default_graph().as_default()` must not switch
            # eager execution off (the eager context has no graph; docs/eager.md).
            yield self
            return
        _default_graph_stack.graphs.append(self)
        try:
            yield self
        finally:
            _default_graph_stack.graphs.remove(self)

    @property
    def building_function(self):
        return False

    @property
    def _default_session(self):
        return None

    def __repr__(self):
        return "<tfteach.Graph object at %#x>" % id(self)


class _DefaultGraphStack(threading.local):
    """`.graphs`: the graphs `as_default()` made the default, innermost last. Each thread
    has its own, as in TensorFlow ("the default graph is a property of the current
    thread"): a thread building in its own graph never builds in another's, and a new
    thread starts with the global default graph (which itself is shared)."""

    def __init__(self):
        self.graphs = []


_default_graph_stack = _DefaultGraphStack()
_global_default_graph = None


def building_graph(graph):
    """The graph an op using a tensor of `graph` is built in: `graph` itself, or the
    default graph when that is a traced function (a tf.data function, data/
    function_graph.py) that captures tensors of `graph`, as TF's FuncGraph does."""
    default = get_default_graph()
    # only graphs that capture outer tensors have captures_from (a tf.function's trace,
    # eager/concrete_function.py, turns eager values into constants instead)
    captures_from = getattr(default, "captures_from", None)
    if graph is not default and captures_from is not None and captures_from(graph):
        return default
    return graph


def get_default_graph():
    """The innermost `as_default()` graph, else the process-wide global graph."""
    global _global_default_graph
    if _default_graph_stack.graphs:
        return _default_graph_stack.graphs[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph():
    """Replaces the global default graph with a new, empty one."""
    global _global_default_graph
    if _default_graph_stack.graphs:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
            "cleared graph, exit the nesting and create a new graph.")
    _global_default_graph = Graph()
