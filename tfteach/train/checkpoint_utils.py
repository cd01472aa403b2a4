"""Reading checkpoints without a graph: `tf.train.NewCheckpointReader`,
`list_variables`, `load_variable`, `load_checkpoint` (TF 1.15's checkpoint_utils.py and
py_checkpoint_reader). They read only the files, never run anything."""
import os

from tfteach.framework.errors import NotFoundError
from tfteach.io.tensor_bundle import BundleReader, index_filename
from tfteach.io.tensor_slice_reader import open_tables
from tfteach.train import checkpoint_management as cm

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint", "load_variable",
           "list_variables", "init_from_checkpoint"]


class CheckpointReader:
    """What `NewCheckpointReader` returns: the checkpoint's names, shapes, dtypes and
    values. Every value read is checked against its CRC-32C (DataLossError if not)."""

    def __init__(self, bundle):
        self._bundle = bundle           # a BundleReader (open_bundle)

    def get_variable_to_shape_map(self):
        return {name: self._bundle.shape(name) for name in self._bundle.keys()}

    def get_variable_to_dtype_map(self):
        return {name: self._bundle.dtype(name) for name in self._bundle.keys()}

    def has_tensor(self, tensor_str):
        return tensor_str in self._bundle.keys()

    def get_tensor(self, tensor_str):
        return self._bundle.get_tensor(tensor_str)

    def debug_string(self):
        return self._bundle.debug_string().encode("utf-8")


def open_bundle(filepattern):
    """The BundleReader of the V2 checkpoint with prefix `filepattern`, with the errors
    of TF's NewCheckpointReader (which tf.train.Checkpoint.restore reads through too)."""
    filepattern = os.fspath(filepattern)
    if isinstance(filepattern, bytes):
        filepattern = filepattern.decode("utf-8")
    if not os.path.exists(index_filename(filepattern)):
        # TF reads it as a V1 checkpoint: TF's errors for what is not one (a directory,
        # a .meta file ...); tfteach reads no V1 checkpoint even when it is one.
        open_tables(filepattern)
        raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: %s "
                            "is not a V2 checkpoint (its .index file is missing); "
                            "tfteach reads V2 checkpoints only" % filepattern)
    return BundleReader(filepattern)


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    """A CheckpointReader for the V2 checkpoint with prefix `filepattern`."""
    return CheckpointReader(open_bundle(filepattern))


def _checkpoint_filename(ckpt_dir_or_file):
    if os.path.isdir(ckpt_dir_or_file):
        return cm.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix, or the latest one in a directory."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory "
                         "%s" % ckpt_dir_or_file)
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """The value (a NumPy array) saved under `name` (a trailing ":0" is ignored)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of every tensor in the checkpoint, sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


# -- init_from_checkpoint -----------------------------------------------------------------
def _set_checkpoint_initializer(variable, ckpt_file, tensor_name):
    """Makes `variable`'s initializer read `tensor_name` from the checkpoint (TF 1.15's
    _set_checkpoint_initializer: a RestoreV2 named checkpoint_initializer + Assign)."""
    from tfteach.ops import io_ops, state_ops
    graph = variable.graph
    with graph.as_default(), graph.device(variable.device or None):
        restored = io_ops.restore_v2(ckpt_file, [tensor_name], [""],
                                     [variable.dtype.base_dtype],
                                     name="checkpoint_initializer")[0]
        restored.set_shape(variable.shape)
        variable._initializer_op = state_ops.assign(variable, restored).op
        variable._initial_value = restored


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Makes the initializers of variables load them from a checkpoint (TF 1.15).

    `assignment_map` maps checkpoint names to variables: `{"old/w": "new/w"}` (a name
    made by tf.get_variable), `{"old/w": w}` (a Variable), `{"old/": "new/"}` (every
    get_variable of scope `new/` from scope `old/`), `{"/": "new/"}` (from the root).
    Nothing is read now: running the initializers reads the checkpoint.
    """
    from tfteach.ops.variable_scope import _variable_store
    from tfteach.ops.variables import Variable
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    variable_map = reader.get_variable_to_shape_map()
    store_vars = _variable_store()._vars
    for tensor_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        var = current if isinstance(current, Variable) else store_vars.get(current)
        if var is not None:
            if tensor_name not in variable_map:
                raise ValueError("Tensor %s is not found in %s checkpoint %s" % (
                    tensor_name, ckpt_dir_or_file, variable_map))
            if not var.get_shape().is_compatible_with(variable_map[tensor_name]):
                raise ValueError("Shape of variable %s (%s) doesn't match with shape of "
                                 "tensor %s (%s) from checkpoint reader." % (
                                     var.name, str(var.get_shape()), tensor_name,
                                     str(variable_map[tensor_name])))
            _set_checkpoint_initializer(var, ckpt_file, tensor_name)
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not tensor_name.endswith("/"):
            raise ValueError("Assignment map with scope only name {} should map to scope "
                             "only {}. Should be 'scope/': 'other_scope/'.".format(
                                 scopes, tensor_name))
        for var_name in sorted(n for n in store_vars
                               if not scopes or n.startswith(scopes + "/")):
            full_name = var_name[len(scopes):]
            if current != "/":
                full_name = full_name[1:]
            if tensor_name != "/":
                full_name = tensor_name + full_name
            if full_name.endswith("/"):
                full_name = full_name[:-1]
            if full_name not in variable_map:
                raise ValueError("Tensor %s (%s in %s) is not found in %s checkpoint" % (
                    full_name, var_name[len(scopes) + 1:], tensor_name, ckpt_dir_or_file))
            _set_checkpoint_initializer(store_vars[var_name], ckpt_file, full_name)
