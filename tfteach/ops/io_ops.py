"""`SaveV2` and `RestoreV2`: the ops a `tf.train.Saver` puts in the graph.

As in TensorFlow, saving and restoring are ops, so `saver.save` is one `sess.run` of
`save/control_dependency` and `saver.restore` one `sess.run` of `save/restore_all`, the
graph shows the `save/` scope TensorBoard shows, and a meta graph carries them to
TensorFlow. Their kernels read and write the V2 checkpoint through io/tensor_bundle.py.

- `SaveV2(prefix, tensor_names, shape_and_slices, tensors...)`: writes the tensors (ref
  inputs are read when the op runs, so a variable saves its current value; an
  uninitialized one fails with FailedPreconditionError) under the given names.
- `RestoreV2(prefix, tensor_names, shape_and_slices) -> tensors`: one output per name,
  of the attr `dtypes`; a missing name is TF's NotFoundError ("Key ... not found in
  checkpoint"), a corrupted file its DataLossError.
Slices (`shape_and_slices` other than "") belong to partitioned variables, which
tfteach does not have; they are refused with UnimplementedError.
"""
import os

import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.errors import (InvalidArgumentError, NotFoundError,
                                      UnimplementedError)
from tfteach.framework.hints import with_hint
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.io.tensor_bundle import BundleReader, index_filename, write_bundle
from tfteach.io.tensor_slice_reader import open_tables
from tfteach.ops.eager_type_errors import cpp_type_name
from tfteach.ops.op_builder import apply_op, unknown

__all__ = ["save_v2", "restore_v2"]


def _text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _names(op_name, tensor_names, shape_and_slices, count):
    names = [_text(n) for n in np.asarray(tensor_names, dtype=object).reshape(-1)]
    slices = [_text(s) for s in np.asarray(shape_and_slices, dtype=object).reshape(-1)]
    if len(names) != count or len(slices) != count:
        raise InvalidArgumentError(None, None, "Expected %d tensor names and shape_and_slices "
                                   "for %s, got %d and %d" % (count, op_name, len(names),
                                                             len(slices)))
    if any(slices):
        raise UnimplementedError(None, None, "%s with slices (partitioned variables) is not "
                                 "supported by tfteach" % op_name)
    return names


def _save_kernel(ctx, prefix, tensor_names, shape_and_slices, *tensors):
    names = _names("SaveV2", tensor_names, shape_and_slices, len(tensors))
    prefix = _text(prefix.item() if isinstance(prefix, np.ndarray) else prefix)
    directory = os.path.dirname(prefix)
    # TF's BundleWriter creates the checkpoint's directory, one level only.
    if directory and not os.path.isdir(directory):
        try:
            os.mkdir(directory)
        except FileNotFoundError:
            raise NotFoundError(None, None, "%s; No such file or directory" % directory) \
                from None
        except FileExistsError:
            pass
    bundle = {}
    for name, value, dtype in zip(names, tensors, ctx.attrs["dtypes"]):
        if name in bundle:
            raise InvalidArgumentError(None, None, "Adding duplicate key: %s" % name)
        bundle[name] = (np.asarray(value), dtype)
    write_bundle(prefix, bundle)
    return None


def _save_shape(op):
    return []


register_op("SaveV2", _save_shape, cpu=_save_kernel, stateful=True)
not_differentiable("SaveV2")


def _restore_kernel(ctx, prefix, tensor_names, shape_and_slices):
    wanted = ctx.attrs["dtypes"]
    names = _names("RestoreV2", tensor_names, shape_and_slices, len(wanted))
    prefix = _text(prefix.item() if isinstance(prefix, np.ndarray) else prefix)
    if not os.path.exists(index_filename(prefix)):
        # TF falls back to its V1 reader, which opens the files matching the prefix.
        open_tables(prefix)
        raise with_hint(NotFoundError(None, None, 'Tensor name "%s" not found in checkpoint '
                                      'files %s' % (names[0], prefix)), "checkpoint_prefix")
    reader = BundleReader(prefix)
    values = []
    for name, dtype in zip(names, wanted):
        stored = reader.dtype(name)      # NotFoundError: "Key ... not found in checkpoint"
        if stored != dtype:
            # TF's DataTypeString names: "float", "double", as 1.15 printed them
            raise InvalidArgumentError(None, None, "tensor_name = %s; expected dtype %s does "
                                       "not equal original dtype %s" % (
                                           name, cpp_type_name(dtype), cpp_type_name(stored)))
        values.append(reader.get_tensor(name))
    return values[0] if len(values) == 1 else tuple(values)


def _restore_shape(op):
    return [(d, unknown()) for d in op._attrs["dtypes"]]


register_op("RestoreV2", _restore_shape, cpu=_restore_kernel, stateful=True)
not_differentiable("RestoreV2")


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """The SaveV2 op (TF's `gen_io_ops.save_v2`)."""
    tensors = [convert.convert_to_tensor(t) for t in tensors]
    inputs = [convert.convert_to_tensor(prefix, dtype=dtypes.string),
              convert.convert_to_tensor(tensor_names, dtype=dtypes.string),
              convert.convert_to_tensor(shape_and_slices, dtype=dtypes.string)] + tensors
    return apply_op("SaveV2", inputs, {"dtypes": [t.dtype.base_dtype for t in tensors]},
                    name or "SaveV2")


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes_, name=None):
    """The RestoreV2 op (TF's `gen_io_ops.restore_v2`): a list of tensors."""
    inputs = [convert.convert_to_tensor(prefix, dtype=dtypes.string),
              convert.convert_to_tensor(tensor_names, dtype=dtypes.string),
              convert.convert_to_tensor(shape_and_slices, dtype=dtypes.string)]
    out = apply_op("RestoreV2", inputs,
                   {"dtypes": [dtypes.as_dtype(d).base_dtype for d in dtypes_]},
                   name or "RestoreV2")
    return out if isinstance(out, list) else [out]
