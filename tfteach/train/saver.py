"""`tf.train.Saver`: save and restore variables in TensorFlow's V2 checkpoint format.

The Saver adds TF 1.15's `save/` subgraph when it is built (see docs/saving.md):

    save/filename/input  Const "model"       save/SaveV2/tensor_names, .../shape_and_slices
    save/filename        PlaceholderWithDefault
    save/Const           PlaceholderWithDefault     <- saver_def.filename_tensor_name
    save/SaveV2          writes every variable
    save/control_dependency   Identity of the filename after SaveV2 <- save_tensor_name
    save/RestoreV2       reads every variable (one op, all names)
    save/Assign, save/Assign_1, ...   one per variable, in sorted name order
    save/restore_all     NoOp grouping the assigns  <- saver_def.restore_op_name

`save()` runs `save/control_dependency` with the path fed to `save/Const`, then
records the checkpoint, rewrites the `checkpoint` state file and deletes what
`max_to_keep` no longer keeps; `restore()` runs `save/restore_all`.

Two deliberate strengths over TF 1.15, both documented:
- before any Assign runs, `restore()` checks every name and shape against the
  checkpoint's index, so a mismatch restores nothing instead of half the variables;
- `sharded=True` writes the same single-shard files (tfteach has one host), with
  `saver_def.sharded` set; `restore_sequentially` changes nothing (one RestoreV2 op).
"""
import os
import time

import numpy as np
from tensorboard.compat.proto import saver_pb2

from tfteach import logging
from tfteach.framework import errors
from tfteach.framework import graph as graph_lib
from tfteach.framework.graph import GraphKeys
from tfteach.io.tensor_bundle import BundleReader, index_filename
from tfteach.ops import io_ops, state_ops
from tfteach.ops.constant_op import constant, identity, placeholder_with_default
from tfteach.ops.dependency_ops import group
from tfteach.ops.shape_ops import reshape
from tfteach.ops.variables import Variable
from tfteach.train import checkpoint_management as cm
from tfteach.train import training_util

__all__ = ["Saver"]

_warned_no_meta_graph = False


# -- what to save -------------------------------------------------------------------------
def _ref_of(value):
    """The variable's ref tensor (what SaveV2 reads and Assign writes), else None."""
    if isinstance(value, Variable):
        return value._variable
    if getattr(value, "dtype", None) is not None and value.dtype.is_ref_dtype:
        return value
    return None


def _names_to_variables(var_list):
    """{checkpoint name: Variable or ref tensor}, TF 1.15's op_list_to_dict."""
    if isinstance(var_list, dict):
        out = {}
        for name, var in var_list.items():
            if _ref_of(var) is None:
                raise TypeError("names_to_saveables must be a dict mapping string names to "
                                "Tensors/Variables. Not a variable: %s" % (var,))
            out[name] = var
        seen = set()
        for name in sorted(out):        # TF's order: the later name is the one reported
            op = _ref_of(out[name]).op
            if op in seen:
                raise ValueError("The same saveable will be restored with two names: %s"
                                 % name)
            seen.add(op)
        return out
    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError("Variables to save should be passed in a dict or a list: %s"
                        % (var_list,))
    out = {}
    for var in var_list:
        if _ref_of(var) is None:
            raise TypeError("Variable to save is not a Variable: %s" % (var,))
        name = var.op.name
        if name in out:
            raise ValueError("At least two variables have the same name: %s" % name)
        out[name] = var
    return out


class Saver:
    """Saves and restores variables (TF 1.15's `tf.train.Saver`, V2 format)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=saver_pb2.SaverDef.V2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. "
                             "Either set defer_build=False or var_list=None.")
        if write_version != saver_pb2.SaverDef.V2:
            raise ValueError("tfteach writes V2 checkpoints only (write_version=V2)")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._allow_empty = allow_empty
        self._is_built = False
        self._is_empty = None
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._names_to_vars = None
        self._last_checkpoints = []
        self._checkpoints_to_be_deleted = []
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if saver_def is not None:
            self._check_saver_def()
            if name:
                # TF overloads `name` as the import scope of an imported meta graph.
                self.saver_def = saver_pb2.SaverDef()
                self.saver_def.CopyFrom(saver_def)
                for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                    setattr(self.saver_def, field, name + "/" + getattr(saver_def, field))
            self._max_to_keep = self.saver_def.max_to_keep
            self._is_built = True
            self._is_empty = False
        elif not defer_build:
            self.build()

    # -- building ------------------------------------------------------------------------
    def _check_saver_def(self):
        if not isinstance(self.saver_def, saver_pb2.SaverDef):
            raise ValueError("saver_def must be a saver_pb2.SaverDef: %s" % (self.saver_def,))
        if not self.saver_def.save_tensor_name:
            raise ValueError("saver_def must specify the save_tensor_name: %s" % self.saver_def)
        if not self.saver_def.restore_op_name:
            raise ValueError("saver_def must specify the restore_op_name: %s" % self.saver_def)

    def build(self):
        if self._is_built:
            return
        self._is_built = True
        if self._var_list is None:
            graph = graph_lib.get_default_graph()
            var_list = list(graph.get_collection(GraphKeys.GLOBAL_VARIABLES)) + list(
                graph.get_collection(GraphKeys.SAVEABLE_OBJECTS))
        else:
            var_list = self._var_list
        if not var_list:
            if self._allow_empty:
                self._is_empty = True
                return
            raise ValueError("No variables to save")
        self._is_empty = False
        self._names_to_vars = _names_to_variables(var_list)
        self.saver_def = self._build_graph()

    def _build_graph(self):
        names = sorted(self._names_to_vars)
        refs = [_ref_of(self._names_to_vars[n]) for n in names]
        graph = refs[0].graph
        with graph.as_default(), graph.name_scope(self._name or "save") as scope:
            filename = placeholder_with_default(constant(self._filename or "model",
                                                         name="filename/input"),
                                                shape=(), name="filename")
            # TF keeps the name "Const" for the filename, for old meta graphs.
            filename = placeholder_with_default(filename, shape=(), name="Const")
            save = io_ops.save_v2(filename, constant(names, name="SaveV2/tensor_names"),
                                  constant([""] * len(names),
                                           name="SaveV2/shape_and_slices"), refs)
            # TF's with_dependencies: colocated with the filename it passes on
            with graph.control_dependencies([save]), graph._colocate_with(filename.op):
                save_tensor = identity(filename, name="control_dependency")
            # TF loads every tensor on the CPU ("for compatibility"), then assigns.
            with graph.device("/cpu:0"):
                restored = io_ops.restore_v2(
                    filename, constant(names, name="RestoreV2/tensor_names"),
                    constant([""] * len(names), name="RestoreV2/shape_and_slices"),
                    [r.dtype.base_dtype for r in refs])
            assigns = []
            for ref, value in zip(refs, restored):
                fully_defined = ref.shape.is_fully_defined()
                if self._reshape and fully_defined:
                    value = reshape(value, ref.shape.as_list())
                assigns.append(state_ops.assign(ref, value, name="Assign",
                                                validate_shape=fully_defined and
                                                not self._reshape))
            restore_op = group(*assigns, name="restore_all")
        del scope
        return saver_pb2.SaverDef(
            filename_tensor_name=filename.name, save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name, max_to_keep=self._max_to_keep,
            sharded=self._sharded,
            keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
            version=saver_pb2.SaverDef.V2)

    def as_saver_def(self):
        return self.saver_def

    def to_proto(self, export_scope=None):
        return self.saver_def

    # -- bookkeeping ---------------------------------------------------------------------
    @property
    def last_checkpoints(self):
        """The checkpoints not yet deleted, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list")
        self._last_checkpoints = [(p, None) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list")
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over old checkpoints (e.g. after a crash) so max_to_keep manages them."""
        mtimes = cm.get_checkpoint_mtimes(checkpoint_paths)
        self.set_last_checkpoints_with_time(list(zip(checkpoint_paths, mtimes)))

    def _record_last_checkpoint(self, path):
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != path]
        self._last_checkpoints.append((path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix="meta"):
        # TF deletes at most one checkpoint per save; one saved after the next
        # keep_checkpoint_every_n_hours mark is kept for good instead.
        if self._checkpoints_to_be_deleted:
            path, timestamp = self._checkpoints_to_be_deleted.pop(0)
            if timestamp is not None and timestamp > self._next_checkpoint_time:
                self._next_checkpoint_time += (
                    self.saver_def.keep_checkpoint_every_n_hours * 3600)
                return
            cm.remove_checkpoint(path, 2, meta_graph_suffix)

    # -- save ----------------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables; returns the checkpoint's prefix (`save_path-STEP`)."""
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = training_util.global_step(sess, global_step)
            pattern = "%s-%08d" if self._pad_step_number else "%s-%d"
            checkpoint_file = pattern % (save_path, global_step)
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError("'latest_filename' collides with 'save_path': '%s' and '%s'"
                                 % (latest_filename, save_path))
        if not hasattr(sess, "run") or not hasattr(sess, "graph"):
            raise TypeError("'sess' must be a Session; %s" % (sess,))
        save_path_parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = sess.run(
                    self.saver_def.save_tensor_name,
                    {self.saver_def.filename_tensor_name: checkpoint_file})
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if save_path_parent and not os.path.isdir(save_path_parent):
                    raise ValueError("Parent directory of {} doesn't exist, can't save."
                                     .format(save_path)) from exc
                raise
            if isinstance(model_checkpoint_path, bytes):
                model_checkpoint_path = model_checkpoint_path.decode("utf-8")
            if write_state:
                self._record_last_checkpoint(model_checkpoint_path)
                cm.update_checkpoint_state_internal(
                    save_dir=save_path_parent, model_checkpoint_path=model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths)
                self._maybe_delete_old_checkpoints(meta_graph_suffix=meta_graph_suffix)
        if write_meta_graph:
            meta_graph_file = cm.meta_graph_filename(checkpoint_file, meta_graph_suffix)
            try:
                with sess.graph.as_default():
                    self.export_meta_graph(meta_graph_file,
                                           strip_default_attrs=strip_default_attrs)
            except _not_exportable() as e:
                # The checkpoint is complete; only the graph has an op TensorFlow's
                # GraphDef cannot express (a tfteach helper op; while loops are written
                # as TF 1.15 frames). A training loop should not die at its first save.
                logging.warning("%s was not written: %s The checkpoint %s is complete: "
                                "restore it with a Saver over a graph built in Python.",
                                meta_graph_file, e, model_checkpoint_path)
        return model_checkpoint_path

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False, clear_extraneous_savers=False,
                          strip_default_attrs=False, save_debug_info=False):
        """Writes the graph and this saver's SaverDef as a MetaGraphDef (`.meta`).

        Needs `tfteach.framework.meta_graph` (GraphDef export); without it the `.meta`
        file is skipped with a warning, and the checkpoint itself is unaffected.
        """
        try:
            from tfteach.framework import meta_graph
        except ImportError:
            global _warned_no_meta_graph
            if not _warned_no_meta_graph:
                _warned_no_meta_graph = True
                logging.warning("tfteach cannot write %s yet: meta graph export "
                                "(tfteach.framework.meta_graph) is not available", filename)
            return None
        return meta_graph.export_meta_graph(
            filename=filename, graph=graph_lib.get_default_graph(), saver_def=self.saver_def,
            collection_list=collection_list, clear_devices=clear_devices, as_text=as_text)

    # -- restore -------------------------------------------------------------------------
    def restore(self, sess, save_path):
        """Restores the variables from the checkpoint `save_path` (a prefix)."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if isinstance(save_path, bytes):
            save_path = save_path.decode("utf-8")
        if not cm.checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: " + save_path)
        logging.info("Restoring parameters from %s", save_path)
        try:
            self._check_against_checkpoint(save_path)
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: save_path})
        except errors.NotFoundError as err:
            raise _wrap_restore_error(err, "a Variable name or other graph key that is "
                                      "missing") from None
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(err, "a mismatch between the current graph and the "
                                      "graph") from None

    def _check_against_checkpoint(self, save_path):
        """Every name in the checkpoint with a shape its variable accepts, before any
        Assign runs: TF would assign some variables and then fail on a later one."""
        if self._names_to_vars is None:
            return                      # built from a SaverDef: the ops check
        if not os.path.exists(index_filename(save_path)):
            return                      # RestoreV2 gives TF's error of its V1 reader
        reader = BundleReader(save_path)
        for name in sorted(self._names_to_vars):
            ref = _ref_of(self._names_to_vars[name])
            stored = reader.shape(name)        # NotFoundError for a missing key
            if not ref.shape.is_fully_defined():
                continue
            wanted = ref.shape.as_list()
            if self._reshape:
                if int(np.prod(stored)) != int(np.prod(wanted)):
                    raise errors.InvalidArgumentError(None, None, (
                        "Input to reshape is a tensor with %d values, but the requested "
                        "shape has %d") % (int(np.prod(stored)), int(np.prod(wanted))))
            elif stored != wanted:
                raise errors.InvalidArgumentError(None, None, (
                    "Assign requires shapes of both tensors to match. lhs shape= [%s] rhs "
                    "shape= [%s]") % (",".join(map(str, wanted)), ",".join(map(str, stored))))


def _not_exportable():
    """The error class of an op with no TensorFlow NodeDef (framework/graph_def.py)."""
    try:
        from tfteach.framework.graph_def import NotExportableError
    except ImportError:
        return ()
    return NotExportableError


def _wrap_restore_error(err, extra_verbiage):
    message = ("Restoring from checkpoint failed. This is most likely due to {} from the "
               "checkpoint. Please ensure that you have not altered the graph expected "
               "based on the checkpoint. Original error:\n\n{}").format(extra_verbiage,
                                                                        err.message)
    wrapped = type(err)(err.node_def, err.op, message)
    wrapped.hint = err.hint
    return wrapped
