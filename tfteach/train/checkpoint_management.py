"""The `checkpoint` state file and the helpers that find checkpoints on disk.

A directory of checkpoints has one small text file, `checkpoint` by default, holding a
`CheckpointState` protobuf in text format:

    model_checkpoint_path: "model.ckpt-2000"
    all_model_checkpoint_paths: "model.ckpt-1000"
    all_model_checkpoint_paths: "model.ckpt-2000"
    all_model_checkpoint_timestamps: 1700000000.123
    ...

`Saver.save` rewrites it after each checkpoint (atomically, and only after the
checkpoint's own files are in place), so `latest_checkpoint(dir)` always names a
complete checkpoint. The functions follow TF 1.15's `checkpoint_management.py`: same
names, arguments, path handling (relative paths are relative to the directory) and
errors.
"""
import glob
import os
import re

from google.protobuf import text_format

from tfteach import logging
from tfteach.io.atomic_files import atomic_write
from tfteach.io.bundle_protos import CheckpointState
from tfteach.io.tensor_bundle import index_filename

__all__ = ["CheckpointState", "generate_checkpoint_state_proto", "update_checkpoint_state",
           "get_checkpoint_state", "latest_checkpoint", "checkpoint_exists",
           "get_checkpoint_mtimes", "remove_checkpoint", "meta_graph_filename"]


def _checkpoint_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """A CheckpointState for the given paths (relative to a relative `save_dir`)."""
    if all_model_checkpoint_paths is None:
        all_model_checkpoint_paths = []
    all_model_checkpoint_paths = list(all_model_checkpoint_paths)
    if (not all_model_checkpoint_paths or
            all_model_checkpoint_paths[-1] != model_checkpoint_path):
        all_model_checkpoint_paths.append(model_checkpoint_path)
    if (all_model_checkpoint_timestamps and
            len(all_model_checkpoint_timestamps) != len(all_model_checkpoint_paths)):
        raise ValueError("Checkpoint timestamps, if provided, must match checkpoint paths "
                         "(got paths %s and timestamps %s)" % (
                             all_model_checkpoint_paths, all_model_checkpoint_timestamps))
    # Relative paths are stored relative to a relative save_dir (TF 1.15's rule).
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        all_model_checkpoint_paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir)
                                      for p in all_model_checkpoint_paths]
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path,
                            all_model_checkpoint_paths=all_model_checkpoint_paths,
                            all_model_checkpoint_timestamps=all_model_checkpoint_timestamps or [])
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    coord_filename = _checkpoint_filename(save_dir, latest_filename)
    if save_relative_paths:
        if os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        if all_model_checkpoint_paths:
            all_model_checkpoint_paths = [os.path.relpath(p, save_dir) if os.path.isabs(p)
                                          else p for p in all_model_checkpoint_paths]
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    if coord_filename == state.model_checkpoint_path:
        raise RuntimeError("Save path '%s' conflicts with path used for checkpoint state.  "
                           "Please use a different save path." % model_checkpoint_path)
    atomic_write(coord_filename, text_format.MessageToString(state).encode("utf-8"))


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Writes the `checkpoint` state file of `save_dir` (atomically)."""
    update_checkpoint_state_internal(
        save_dir=save_dir, model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths,
        latest_filename=latest_filename, save_relative_paths=False,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of `checkpoint_dir`, or None when there is no state file.

    Relative paths in the file come back joined to `checkpoint_dir`. A state file that
    does not parse is logged and ignored (None), as in TensorFlow.
    """
    coord_filename = _checkpoint_filename(checkpoint_dir, latest_filename)
    if not os.path.isfile(coord_filename):
        return None
    try:
        with open(coord_filename, "r", encoding="utf-8") as f:
            contents = f.read()
        state = CheckpointState()
        text_format.Merge(contents, state)
        if not state.model_checkpoint_path:
            raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        logging.warning("%s: %s", type(e).__name__, e)
        logging.warning("%s: Checkpoint ignored", coord_filename)
        return None
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, path in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(path):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, path)
    return state


def _matching(pattern):
    return glob.glob(pattern)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint named by the state file, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        path = state.model_checkpoint_path
        if _matching(index_filename(path)) or _matching(path):
            return path
        logging.error("Couldn't match files for checkpoint %s", path)
    return None


def checkpoint_exists(checkpoint_prefix):
    """True if a V2 (`PREFIX.index`) or V1 (`PREFIX`) checkpoint matches the prefix."""
    return bool(_matching(index_filename(checkpoint_prefix)) or _matching(checkpoint_prefix))


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times of the checkpoints that exist among the prefixes."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for pattern in (index_filename(prefix), prefix):
            found = _matching(pattern)
            if found:
                mtimes.append(os.stat(found[0]).st_mtime)
                break
    return mtimes


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=2,
                      meta_graph_suffix="meta"):
    """Deletes a checkpoint's index, data and meta files (those that exist)."""
    doomed = [index_filename(checkpoint_prefix),
              meta_graph_filename(checkpoint_prefix, meta_graph_suffix)]
    doomed += glob.glob(glob.escape(checkpoint_prefix) + ".data-?????-of-?????")
    if checkpoint_format_version == 1:
        doomed.append(checkpoint_prefix)
    for path in doomed:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            logging.warning("Ignoring: %s", e)


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """`model.ckpt-10` -> `model.ckpt-10.meta` (a shard suffix is dropped first)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])
