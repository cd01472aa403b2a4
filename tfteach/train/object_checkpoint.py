"""`tf.train.Checkpoint`: TensorFlow's object-based checkpoints, for eager variables.

A Saver names variables by their graph names; a Checkpoint names them by the *path of
attributes* that leads to them from the objects it was given: `Checkpoint(model=net)`
saves `net.layers[0].w` under `model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE`. The file is
the same V2 tensor bundle (io/tensor_bundle.py) as the Saver's, plus one string tensor,
`_CHECKPOINTABLE_OBJECT_GRAPH`: a `TrackableObjectGraph` protobuf listing every object
(the root Checkpoint first, breadth first), its named children and its variables'
checkpoint keys. TensorFlow reads these files with its own tf.train.Checkpoint, and
tfteach reads TensorFlow's (tests/test_object_checkpoint_reference.py).

What is tracked, as TF's AutoTrackable tracks it: attributes holding variables,
`tf.Module`s, other Checkpoints, and lists, tuples and dicts of them (a list is a node of
its own whose children are named "0", "1", ...); an object with a
`_checkpoint_dependencies()` method names its children itself ([(name, object), ...]). Restoring matches objects by those
names and assigns the saved values at once; variables created after `restore` are not
restored later (TF defers them; docs/eager.md).
"""
import os

import numpy as np

from tfteach.framework import dtypes, errors
from tfteach.io import tensor_bundle
from tfteach.train import checkpoint_management
from tfteach.train.checkpoint_utils import open_bundle

__all__ = ["Checkpoint", "CheckpointManager"]

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_SLOT_MARK = "/.OPTIMIZER_SLOT/"


def _object_graph_pb2():
    from tensorboard.compat.proto import trackable_object_graph_pb2
    return trackable_object_graph_pb2


def _escape(name):
    """TF's escaping of a local name inside a checkpoint key ("." -> "..", "/" -> ".S")."""
    return name.replace(".", "..").replace("/", ".S")


def _is_variable(x):
    return hasattr(x, "_ref_value") and hasattr(x, "_eager_tensor")


def _is_trackable(x):
    from tfteach.eager.module import Module
    return _is_variable(x) or isinstance(x, (Module, Checkpoint)) or hasattr(
        x, "_checkpoint_dependencies") or hasattr(x, "_checkpoint_slots") or (
        isinstance(x, (list, tuple, dict)) and any(_is_trackable(v) for v in
                                                   (x.values() if isinstance(x, dict) else x)))


def _children(obj):
    """(local name, child) pairs of a trackable object, in TF's order."""
    if isinstance(obj, Checkpoint):
        items = list(obj._children.items())
    elif hasattr(obj, "_checkpoint_dependencies"):
        # A library object naming its own children (TF's `_trackable_children`):
        # [(local name, object), ...], e.g. a Keras optimizer's slots.
        items = list(obj._checkpoint_dependencies())
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    elif _is_variable(obj):
        return []
    else:
        ignored = getattr(obj, "_TF_MODULE_IGNORED_PROPERTIES", ())
        items = [(k, v) for k, v in vars(obj).items()
                 if not k.startswith("_") and k not in ignored]
        items += [(k, v) for k, v in vars(obj).items()
                  if k.startswith("_") and k not in ignored and _is_variable(v)]
    return [(name, child) for name, child in items if _is_trackable(child)]


def _slot_nodes(objects, paths):
    """Optimizer slot variables, as TF lists them: for each optimizer among `objects`
    (one with `_checkpoint_slots`), [(slot name, original node, slot variable)] for the
    variables among `objects` it has slots for."""
    variables = [o for o in objects if _is_variable(o)]
    node_of = {id(o): i for i, o in enumerate(objects)}
    out = {}
    for i, obj in enumerate(objects):
        if hasattr(obj, "_checkpoint_slots"):
            out[i] = [(name, node_of[id(var)], slot)
                      for name, var, slot in obj._checkpoint_slots(variables)]
    return out


def _walk(root):
    """Every object reachable from `root`, breadth first: (objects, paths, children)."""
    objects, paths, node_of = [root], [()], {id(root): 0}
    children = []
    i = 0
    while i < len(objects):
        refs = []
        for name, child in _children(objects[i]):
            if id(child) not in node_of:
                node_of[id(child)] = len(objects)
                objects.append(child)
                paths.append(paths[i] + (name,))
            refs.append((node_of[id(child)], name))
        children.append(refs)
        i += 1
    return objects, paths, children


class _RestoreStatus:
    """What `Checkpoint.restore` returns (TF's CheckpointLoadStatus)."""

    def __init__(self, unmatched_keys, unmatched_variables, path):
        self._unmatched_keys = unmatched_keys
        self._unmatched_variables = unmatched_variables
        self._path = path

    def assert_consumed(self):
        if self._unmatched_keys:
            raise AssertionError("Unresolved object in checkpoint %s: %s"
                                 % (self._path, sorted(self._unmatched_keys)[0]))
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        if self._unmatched_variables:
            raise AssertionError("Some Python objects were not bound to checkpointed "
                                 "values, likely due to changes in the Python program: %s"
                                 % [v.name for v in self._unmatched_variables])
        return self

    def assert_nontrivial_match(self):
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        pass

    def initialize_or_restore(self, session=None):
        pass


class Checkpoint:
    """`tf.train.Checkpoint(**objects)`: saves and restores those objects' variables."""

    def __init__(self, root=None, **kwargs):
        self._children = {}
        if root is not None:
            kwargs = dict(root=root, **kwargs)
        for name, value in kwargs.items():
            if not _is_trackable(value):
                raise ValueError("`Checkpoint` was expecting a trackable object (an object "
                                 "derived from `Trackable`), got %s. If you believe this "
                                 "object should be trackable (i.e. it is part of the "
                                 "TensorFlow Python API and manages state), please open "
                                 "an issue." % (value,))
            self._children[name] = value
        self._save_counter = None

    def __getattr__(self, name):
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError("'Checkpoint' object has no attribute '%s'" % name)

    @property
    def save_counter(self):
        """How many times `save` ran (an int64 variable, created at the first save)."""
        if self._save_counter is None:
            from tfteach.eager.variables import EagerVariable
            self._save_counter = EagerVariable(np.int64(0), trainable=False,
                                               name="save_counter")
            self._children["save_counter"] = self._save_counter
        return self._save_counter

    # -- writing -----------------------------------------------------------------------
    def _tensors(self):
        pb2 = _object_graph_pb2()
        objects, paths, children = _walk(self)
        graph = pb2.TrackableObjectGraph()
        tensors = {}
        def add_variable(node, obj, key):
            node.attributes.add(name="VARIABLE_VALUE", full_name=obj.name.split(":")[0],
                                checkpoint_key=key)
            tensors[key] = (obj.numpy(), obj.dtype)

        def path_key(path):
            return "/".join(_escape(p) for p in path)
        for obj, path, refs in zip(objects, paths, children):
            node = graph.nodes.add()
            for node_id, name in refs:
                node.children.add(node_id=node_id, local_name=name)
            if _is_variable(obj):
                add_variable(node, obj, path_key(path) + _VALUE_SUFFIX)
        # Slot variables are nodes of their own after all the others, keyed under the
        # variable they belong to: `model/w/.OPTIMIZER_SLOT/optimizer/m/...` (TF's).
        for optimizer_id, slots in _slot_nodes(objects, paths).items():
            for slot_name, original_id, slot in slots:
                slot_id = len(graph.nodes)
                graph.nodes[optimizer_id].slot_variables.add(
                    original_variable_node_id=original_id, slot_name=slot_name,
                    slot_variable_node_id=slot_id)
                add_variable(graph.nodes.add(), slot,
                             path_key(paths[original_id]) + _SLOT_MARK
                             + path_key(paths[optimizer_id]) + "/" + _escape(slot_name)
                             + _VALUE_SUFFIX)
        tensors[OBJECT_GRAPH_KEY] = (np.array(graph.SerializeToString(), dtype=object),
                                     dtypes.string)
        return tensors

    def write(self, file_prefix):
        """Writes a checkpoint at exactly `file_prefix`; returns it."""
        file_prefix = os.fspath(file_prefix)
        tensor_bundle.write_bundle(file_prefix, self._tensors())
        return file_prefix

    def save(self, file_prefix):
        """Writes `file_prefix-N` (N = the save counter, counting this save), records it
        as the directory's latest checkpoint, and returns it."""
        counter = self.save_counter
        counter.assign_add(np.int64(1))
        path = self.write("%s-%d" % (os.fspath(file_prefix), int(counter.numpy())))
        # As TF 2's Checkpoint.save: the state file names this checkpoint only, by a
        # path relative to its directory.
        checkpoint_management.update_checkpoint_state_internal(
            os.path.dirname(path) or ".", path, [path], save_relative_paths=True)
        return path

    # -- reading -----------------------------------------------------------------------
    def read(self, save_path):
        return self.restore(save_path)

    def restore(self, save_path):
        """Assigns the saved values to the variables found at the same paths. None (no
        checkpoint yet) restores nothing, as TF."""
        if save_path is None:
            return _RestoreStatus(set(), [], None)
        reader = open_bundle(save_path)     # TF reads through NewCheckpointReader
        if OBJECT_GRAPH_KEY not in reader.entries:
            raise errors.NotFoundError(
                None, None, "The checkpoint %s has no %s: it was written by a Saver (name-"
                "based). Restore it with tf.train.Saver." % (save_path, OBJECT_GRAPH_KEY))
        pb2 = _object_graph_pb2()
        graph = pb2.TrackableObjectGraph()
        graph.ParseFromString(bytes(np.asarray(reader.get_tensor(OBJECT_GRAPH_KEY)).item()))
        matched_nodes = {0: self}
        queue = [0]
        if "save_counter" in {c.local_name for c in graph.nodes[0].children}:
            self.save_counter                       # noqa: B018 - created to be restored
        used_keys = set()
        while queue:
            node_id = queue.pop(0)
            obj = matched_nodes[node_id]
            ours = dict(_children(obj))
            for ref in graph.nodes[node_id].children:
                child = ours.get(ref.local_name)
                if child is None and hasattr(obj, "_restore_checkpoint_dependency"):
                    child = _create_restored(obj, ref, graph, reader)
                if child is None or ref.node_id in matched_nodes:
                    continue
                matched_nodes[ref.node_id] = child
                queue.append(ref.node_id)
        restored = set()
        for node_id, obj in matched_nodes.items():
            for attr in graph.nodes[node_id].attributes:
                if attr.name == "VARIABLE_VALUE" and _is_variable(obj):
                    value = np.asarray(reader.get_tensor(attr.checkpoint_key))
                    if not obj.shape.is_compatible_with(value.shape):
                        raise ValueError(   # TF 2's words
                            "Received incompatible tensor with shape %s when attempting to "
                            "restore variable with shape %s and name %s."
                            % (value.shape, tuple(obj.shape.as_list()),
                               attr.checkpoint_key))
                    obj.assign(value.astype(obj.dtype.np))
                    used_keys.add(attr.checkpoint_key)
                    restored.add(id(obj))
        for node_id, obj in list(matched_nodes.items()):
            if not hasattr(obj, "_restore_checkpoint_slot"):
                continue
            for ref in graph.nodes[node_id].slot_variables:
                original = matched_nodes.get(ref.original_variable_node_id)
                if original is None or not _is_variable(original):
                    continue        # TF defers these; tfteach does not (docs/eager.md)
                for attr in graph.nodes[ref.slot_variable_node_id].attributes:
                    value = np.asarray(reader.get_tensor(attr.checkpoint_key))
                    # None: a slot this optimizer never has (Adam's "m" given to SGD)
                    if obj._restore_checkpoint_slot(original, ref.slot_name,
                                                    value) is not None:
                        used_keys.add(attr.checkpoint_key)
        all_keys = {a.checkpoint_key for n in graph.nodes for a in n.attributes}
        unmatched_vars = [o for o in _walk(self)[0] if _is_variable(o) and id(o) not in restored]
        return _RestoreStatus(all_keys - used_keys, unmatched_vars, save_path)


def _create_restored(owner, ref, graph, reader):
    """A variable child the checkpoint has and `owner` has not made yet (an optimizer's
    `beta1_power` before its first step): created now with the saved value."""
    for attr in graph.nodes[ref.node_id].attributes:
        if attr.name == "VARIABLE_VALUE":
            value = np.asarray(reader.get_tensor(attr.checkpoint_key))
            return owner._restore_checkpoint_dependency(ref.local_name, value)
    return None


class CheckpointManager:
    """`tf.train.CheckpointManager`: numbered saves in a directory, keeping the last few."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError("CheckpointManager expects a tf.train.Checkpoint, got %r"
                            % (checkpoint,))
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        state = checkpoint_management.get_checkpoint_state(self._directory)
        self._kept = list(state.all_model_checkpoint_paths) if state is not None else []

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoints(self):
        """The paths of the checkpoints kept, oldest first."""
        return list(self._kept)

    @property
    def latest_checkpoint(self):
        return self._kept[-1] if self._kept else None

    def save(self, checkpoint_number=None):
        counter = self._checkpoint.save_counter
        counter.assign_add(np.int64(1))
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write("%s-%d" % (self._prefix, number))
        self._kept = [p for p in self._kept if p != path] + [path]
        if self._max_to_keep is not None:
            while len(self._kept) > self._max_to_keep:
                checkpoint_management.remove_checkpoint(self._kept.pop(0))
        checkpoint_management.update_checkpoint_state_internal(
            self._directory, path, list(self._kept), save_relative_paths=True)
        return path

    def restore_or_initialize(self):
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint)
            return self.latest_checkpoint
        return None
