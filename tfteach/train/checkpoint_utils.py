"""Reading checkpoints without a graph: `tf.train.NewCheckpointReader`,
`list_variables`, `load_variable`, `load_checkpoint` (TF 1.15's checkpoint_utils.py and
py_checkpoint_reader). They read only the files, never run anything."""
import glob
import os

from tfteach.framework.errors import NotFoundError
from tfteach.io.tensor_bundle import BundleReader, index_filename
from tfteach.train import checkpoint_management as cm

__all__ = ["CheckpointReader", "NewCheckpointReader", "load_checkpoint", "load_variable",
           "list_variables"]


class CheckpointReader:
    """What `NewCheckpointReader` returns: the checkpoint's names, shapes, dtypes and
    values. Every value read is checked against its CRC-32C (DataLossError if not)."""

    def __init__(self, prefix):
        self._bundle = BundleReader(prefix)

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


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    """A CheckpointReader for the V2 checkpoint with prefix `filepattern`."""
    filepattern = os.fspath(filepattern)
    if isinstance(filepattern, bytes):
        filepattern = filepattern.decode("utf-8")
    if not glob.glob(glob.escape(index_filename(filepattern))):
        if glob.glob(glob.escape(filepattern)) and os.path.isfile(filepattern):
            raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: %s "
                                "is not a V2 checkpoint (its .index file is missing); "
                                "tfteach reads V2 checkpoints only" % filepattern)
        raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed "
                            "to find any matching files for %s" % filepattern)
    return CheckpointReader(filepattern)


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
