"""The TF1 summary ops: each returns a string scalar holding a serialized `Summary`
protobuf, exactly what TensorFlow's ops return, so `FileWriter.add_summary` (or
TensorFlow's own writer) can store it.

Op types and attrs are TensorFlow's (ScalarSummary, HistogramSummary, ImageSummary,
AudioSummaryV2, TensorSummaryV2, MergeSummary), so a graph with summaries exports to a
GraphDef TensorFlow runs. The Python functions follow TF 1.15's `tf.summary`: the tag is
the op's name scope (`train/loss` inside `with tf.name_scope("train")`, `loss_1` for a
second `loss`), illegal tag characters become `_`, `family` prefixes the tag, and each
op is added to `collections` (default `[GraphKeys.SUMMARIES]`).
"""
import contextlib
import logging
import re

import numpy as np

from tfteach.framework import convert, dtypes, tensor_shape
from tfteach.framework import graph as graph_lib
from tfteach.framework.errors import InvalidArgumentError
from tfteach.framework.graph import GraphKeys
from tfteach.framework.registry import not_differentiable, register_op
from tfteach.framework.tensor_proto import tensor_content_proto
from tfteach.io.tf_protos import Summary, SummaryMetadata
from tfteach.ops.op_builder import apply_op
from tfteach.summary.histogram import histogram_proto
from tfteach.summary.media import encode_png, encode_wav, to_uint8_images

__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge",
           "merge_all"]

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")
_DEFAULT_BAD_COLOR = np.array([255, 0, 0, 255], np.uint8)     # TF's: opaque red


def _string_scalar(op):
    return [(dtypes.string, tensor_shape.TensorShape([]))]


def _as_bytes(value):
    """A string tensor's value (bytes, or a 0-d object array holding bytes) as bytes."""
    if isinstance(value, np.ndarray):
        value = value.item()
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def _text(value):
    return _as_bytes(value).decode("utf-8", "replace")


def _serialized(summary):
    return np.array(summary.SerializeToString(), dtype=object)


# -- kernels ----------------------------------------------------------------------------------
def _scalar_kernel(ctx, tags, values):
    tags, values = np.asarray(tags, dtype=object), np.asarray(values)
    if tags.shape != values.shape:
        raise InvalidArgumentError(
            None, ctx.op, "tags and values not the same shape: %s != %s (tag '%s')"
            % (_shape_text(tags.shape), _shape_text(values.shape),
               _text(tags.ravel()[0]) if tags.size else ""))
    summary = Summary()
    for tag, value in zip(tags.ravel(), values.ravel()):
        summary.value.add(tag=_text(tag), simple_value=float(value))
    return _serialized(summary)


def _histogram_kernel(ctx, tag, values):
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise InvalidArgumentError(None, ctx.op, "%s in summary histogram for: %s"
                                   % ("Nan" if np.isnan(values).any() else "Infinity",
                                      _text(tag)))
    summary = Summary()
    summary.value.add(tag=_text(tag), histo=histogram_proto(values))
    return _serialized(summary)


def _shape_text(shape):
    """TensorFlow's TensorShape::DebugString: `[]`, `[2]`, `[2,3]`."""
    return "[%s]" % ",".join(str(d) for d in shape)


def _media_tag(base, kind, max_outputs, i):
    """TF's tags: `name/image` when one image was asked for (max_outputs=1), else
    `name/image/0`, `name/image/1`, ... even when the batch holds one image: the tag
    depends on the number requested, not the number produced (TF's kernels)."""
    return "%s/%s" % (base, kind) if max_outputs <= 1 else "%s/%s/%d" % (base, kind, i)


def _image_kernel(ctx, tag, tensor):
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[-1] not in (1, 3, 4):
        raise InvalidArgumentError(
            None, ctx.op, "Tensor must be 4-D with last dim 1, 3, or 4, not %s"
            % tensor_shape.TensorShape(tensor.shape))
    count = min(ctx.attrs["max_images"], tensor.shape[0])
    color = ctx.attrs.get("bad_color", _DEFAULT_BAD_COLOR)
    images = to_uint8_images(tensor[:count], color)
    summary = Summary()
    for i in range(count):
        value = summary.value.add(tag=_media_tag(_text(tag), "image",
                                                 ctx.attrs["max_images"], i))
        value.image.height, value.image.width, value.image.colorspace = images[i].shape
        value.image.encoded_image_string = encode_png(images[i])
    return _serialized(summary)


def _audio_kernel(ctx, tag, tensor, sample_rate):
    tensor = np.asarray(tensor, np.float32)
    if tensor.ndim == 2:
        tensor = tensor[:, :, None]
    count = min(ctx.attrs["max_outputs"], tensor.shape[0])
    summary = Summary()
    for i in range(count):
        value = summary.value.add(tag=_media_tag(_text(tag), "audio",
                                                 ctx.attrs["max_outputs"], i))
        value.audio.sample_rate = float(sample_rate)
        value.audio.num_channels = tensor.shape[2]
        value.audio.length_frames = tensor.shape[1]
        value.audio.content_type = "audio/wav"
        value.audio.encoded_audio_string = encode_wav(tensor[i], float(sample_rate))
    return _serialized(summary)


def _tensor_kernel(ctx, tag, tensor, serialized_metadata):
    summary = Summary()
    value = summary.value.add(tag=_text(tag))
    value.metadata.ParseFromString(_as_bytes(serialized_metadata))
    dtype = ctx.op.inputs[1].dtype.base_dtype
    value.tensor.CopyFrom(tensor_content_proto(np.asarray(tensor), dtype=dtype))
    return _serialized(summary)


def _merge_kernel(ctx, *inputs):
    merged, seen = Summary(), set()
    for serialized in inputs:
        part = Summary()
        try:
            part.ParseFromString(_as_bytes(serialized))
        except Exception:
            raise InvalidArgumentError(None, ctx.op, "Could not parse one of the summary "
                                       "inputs") from None
        for value in part.value:
            if value.tag and value.tag in seen:
                raise InvalidArgumentError(None, ctx.op, "Duplicate tag %s found in summary "
                                           "inputs" % value.tag)
            seen.add(value.tag)
            merged.value.add().CopyFrom(value)
    return _serialized(merged)


register_op("ScalarSummary", _string_scalar, cpu=_scalar_kernel)
register_op("HistogramSummary", _string_scalar, cpu=_histogram_kernel)
register_op("ImageSummary", _string_scalar, cpu=_image_kernel)
register_op("AudioSummaryV2", _string_scalar, cpu=_audio_kernel)
register_op("TensorSummaryV2", _string_scalar, cpu=_tensor_kernel)
register_op("MergeSummary", _string_scalar, cpu=_merge_kernel)
for _type in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
              "TensorSummaryV2", "MergeSummary"):
    not_differentiable(_type)


# -- the tf.summary functions -----------------------------------------------------------------
def _clean_tag(name):
    if name is None:
        return None
    new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if new_name != name:
        logging.getLogger("tensorflow").info(
            "Summary name %s is illegal; using %s instead.", name, new_name)
    return new_name


@contextlib.contextmanager
def _summary_scope(name, family=None, values=None):
    """(tag, scope) as TF 1.15's summary_op_util.summary_scope."""
    name, family = _clean_tag(name), _clean_tag(family)
    scoped = name if family is None else "%s/%s" % (family, name)
    graph = graph_lib.get_default_graph()
    with graph.name_scope(scoped) as scope:
        tag = scope.rstrip("/")
        if family is not None:
            tag = "%s/%s" % (family, tag)
        yield tag, scope


# The dtypes of the ops' `T` attrs, in the order TF's TypeError lists them.
_REAL_NUMBERS = ("float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                 "float16, uint32, uint64")
_IMAGE_TYPES = "uint8, float32, float16, float64"


def _input_const(value, input_name):
    """A string input made a Const as TF's op wrappers make it: named after the op's
    input (`loss/tags`, `h/tag`), in the summary's scope."""
    return convert.convert_to_tensor(value, dtype=dtypes.string, name=input_name)


def _check_dtype(tensor, input_name, allowed):
    if tensor.dtype.base_dtype.name not in allowed.split(", "):
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: %s" % (input_name, tensor.dtype.base_dtype.name,
                                                allowed))


def _collect(op_output, collections):
    graph = graph_lib.get_default_graph()
    for key in (collections if collections is not None else [GraphKeys.SUMMARIES]):
        graph.add_to_collection(key, op_output)


def scalar(name, tensor, collections=None, family=None):
    """`tf.summary.scalar`: a Summary with one `simple_value`. A non-scalar tensor is
    accepted when building and fails when run, as in TensorFlow."""
    tensor = convert.convert_to_tensor(tensor)
    with _summary_scope(name, family) as (tag, scope):
        tags = _input_const(tag, "tags")
        _check_dtype(tensor, "values", _REAL_NUMBERS)
        val = apply_op("ScalarSummary", [tags, tensor], {"T": tensor.dtype.base_dtype},
                       name=scope)
    _collect(val, collections)
    return val


def histogram(name, values, collections=None, family=None):
    """`tf.summary.histogram`: the values' histogram in TF's fixed buckets."""
    values = convert.convert_to_tensor(values)
    with _summary_scope(name, family) as (tag, scope):
        tag = _input_const(tag, "tag")
        _check_dtype(values, "values", _REAL_NUMBERS)
        val = apply_op("HistogramSummary", [tag, values], {"T": values.dtype.base_dtype},
                       name=scope)
    _collect(val, collections)
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """`tf.summary.image`: up to `max_outputs` images of a [N, H, W, 1|3|4] tensor."""
    tensor = convert.convert_to_tensor(tensor)
    with _summary_scope(name, family) as (tag, scope):
        tag = _input_const(tag, "tag")
        _check_dtype(tensor, "tensor", _IMAGE_TYPES)
        val = apply_op("ImageSummary", [tag, tensor],
                       {"T": tensor.dtype.base_dtype, "max_images": int(max_outputs),
                        "bad_color": _DEFAULT_BAD_COLOR.copy()}, name=scope)
    _collect(val, collections)
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """`tf.summary.audio`: up to `max_outputs` clips of a [N, frames(, channels)] tensor
    of samples in [-1, 1]."""
    tensor = convert.convert_to_tensor(tensor, dtype=dtypes.float32)
    with _summary_scope(name, family) as (tag, scope):
        rate = convert.convert_to_tensor(sample_rate, dtype=dtypes.float32,
                                         name="sample_rate")
        tag = _input_const(tag, "tag")
        val = apply_op("AudioSummaryV2", [tag, tensor, rate],
                       {"max_outputs": int(max_outputs)}, name=scope)
    _collect(val, collections)
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """`tf.summary.tensor_summary`: the whole tensor, with optional SummaryMetadata."""
    if summary_metadata is None:
        summary_metadata = SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    tensor = convert.convert_to_tensor(tensor)
    with _summary_scope(name, family) as (tag, scope):
        tag = _input_const(tag, "tag")
        metadata = _input_const(summary_metadata.SerializeToString(),
                                "serialized_summary_metadata")
        val = apply_op("TensorSummaryV2", [tag, tensor, metadata],
                       {"T": tensor.dtype.base_dtype}, name=scope)
    _collect(val, collections)
    return val


def text(name, tensor, collections=None):
    """`tf.summary.text`: a string tensor for TensorBoard's text dashboard."""
    tensor = convert.convert_to_tensor(tensor)
    if tensor.dtype.base_dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s"
                         % (tensor.name, tensor.dtype))
    metadata = SummaryMetadata()
    metadata.plugin_data.plugin_name = "text"
    return tensor_summary(name, tensor, collections=collections, summary_metadata=metadata)


def merge(inputs, collections=None, name=None):
    """`tf.summary.merge`: one Summary with the values of all `inputs` (duplicate tags
    are an InvalidArgumentError when it runs)."""
    inputs = [convert.convert_to_tensor(i) for i in inputs]
    # TF 1.15: name_scope(name, "Merge") around merge_summary(name=name), so the op of
    # merge(..., name="m") is "m/m", and merge_all()'s "Merge/MergeSummary".
    name = _clean_tag(name)
    with graph_lib.get_default_graph().name_scope(name or "Merge"):
        val = apply_op("MergeSummary", inputs, {"N": len(inputs)}, name=name or "MergeSummary")
    if collections:
        _collect(val, collections)
    return val


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """`tf.summary.merge_all`: merges the summaries of collection `key`; None if empty."""
    summary_ops = graph_lib.get_default_graph().get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)
