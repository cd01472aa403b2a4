"""tf.reverse_sequence (`ReverseSequence`): reverses x[b, :lengths[b]] along `seq_axis`
for each b along `batch_axis`; the rest is kept. bidirectional_dynamic_rnn uses it.

The kernel makes TF's checks with its messages (a length below 0 or beyond the sequence
axis, the wrong number of lengths); the gradient is the same reversal of the gradient.
"""
import numpy as np

from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.registry import gradient, register_op
from tfteach.kernels.cpu.shape_kernels import invalid_argument
from tfteach.ops.op_builder import ShapeError, apply_op
from tfteach.ops.typed_inputs import check_allowed
from tfteach.runtime.placement import register_cpu_only

__all__ = ["reverse_sequence"]


def _reverse_sequence_shape(op):
    x, lengths = op._inputs
    seq_dim, batch_dim = op._attrs["seq_dim"], op._attrs["batch_dim"]
    if lengths.shape.ndims not in (None, 1):
        raise ShapeError("Shape must be rank 1 but is rank %d" % lengths.shape.ndims)
    rank = x.shape.ndims
    if rank is not None:
        if not 0 <= batch_dim < rank:
            raise ShapeError("Invalid batch_dim %d, input rank is %d" % (batch_dim, rank))
        if not 0 <= seq_dim < rank:
            raise ShapeError("Invalid seq_dim %d, input rank is %d" % (seq_dim, rank))
        batch, n = x.shape[batch_dim].value, (lengths.shape[0].value
                                              if lengths.shape.ndims == 1 else None)
        if batch is not None and n is not None and batch != n:
            raise ShapeError("Dimensions must be equal, but are %d and %d" % (n, batch))
    return [(x.dtype.base_dtype, x.shape)]


def _reverse_sequence_kernel(ctx, x, lengths):
    seq_dim, batch_dim = ctx.attrs["seq_dim"], ctx.attrs["batch_dim"]
    x, lengths = np.asarray(x), np.asarray(lengths)
    if lengths.ndim != 1:
        raise invalid_argument(ctx, "seq_lengths must be 1-dim, not %d" % lengths.ndim)
    if batch_dim == seq_dim:
        raise invalid_argument(ctx, "batch_dim == seq_dim == %d" % seq_dim)
    if seq_dim >= x.ndim:
        raise invalid_argument(ctx, "seq_dim must be < input rank ( %d vs. %d)"
                               % (seq_dim, x.ndim))
    if batch_dim >= x.ndim:
        raise invalid_argument(ctx, "batch_dim must be < input rank ( %d vs. %d)"
                               % (batch_dim, x.ndim))
    if lengths.size != x.shape[batch_dim]:
        raise invalid_argument(ctx, "Length of seq_lengths != input.dims(%d), (%d vs. %d)"
                               % (batch_dim, lengths.size, x.shape[batch_dim]))
    for d, n in enumerate(lengths):
        if n < 0:
            raise invalid_argument(ctx, "seq_lens(%d) < 0" % d)
        if n > x.shape[seq_dim]:
            raise invalid_argument(ctx, "seq_lens(%d) > input.dims(%d)" % (d, seq_dim))
    out = np.array(x)                                       # a copy
    moved_in = np.moveaxis(x, (batch_dim, seq_dim), (0, 1))
    moved_out = np.moveaxis(out, (batch_dim, seq_dim), (0, 1))   # a view of out
    for b, n in enumerate(lengths):
        moved_out[b, :n] = moved_in[b, :n][::-1]
    return out


register_op("ReverseSequence", _reverse_sequence_shape, cpu=_reverse_sequence_kernel)
register_cpu_only("ReverseSequence")


@gradient("ReverseSequence")
def _reverse_sequence_grad(op, grad):
    return [reverse_sequence(grad, op.inputs[1], seq_axis=op.get_attr("seq_dim"),
                             batch_axis=op.get_attr("batch_dim")), None]


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None,  # noqa: A002
                     name=None, seq_dim=None, batch_dim=None):
    """Reverses input[b, :seq_lengths[b]] along seq_axis for each b along batch_axis
    (TF1's argument names seq_dim / batch_dim too)."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else batch_dim
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument 'seq_axis'")
    with name_scope(name, "ReverseSequence", [input, seq_lengths]) as scope:
        x = convert_to_tensor(input, name="input")
        lengths = convert_to_tensor(seq_lengths, name="seq_lengths")
        check_allowed(lengths.dtype.base_dtype, "index", "seq_lengths")
        return apply_op("ReverseSequence", [x, lengths],
                        {"T": x.dtype.base_dtype, "Tlen": lengths.dtype.base_dtype,
                         "seq_dim": int(seq_axis), "batch_dim": int(batch_axis or 0)}, scope)
