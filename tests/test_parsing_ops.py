"""tf.parse_example / parse_single_example / parse_single_sequence_example (ops/
parsing_ops.py, sequence_parsing.py): outputs written out by hand from the Examples the
tests build, static shapes, the GraphDef form of TF 1.15's ops, and bad input."""
import numpy as np
import pytest

import tfteach as tf


def _feature(values):
    if isinstance(values[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    if isinstance(values[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=values))


def example(**features):
    return tf.train.Example(features=tf.train.Features(feature={
        k: _feature(v) for k, v in features.items()})).SerializeToString()


FEATURES = {
    "image": tf.FixedLenFeature([], tf.string),
    "label": tf.FixedLenFeature([], tf.int64),
    "xy": tf.FixedLenFeature([2], tf.float32, default_value=[-1.0, -1.0]),
    "tags": tf.VarLenFeature(tf.string),
    "steps": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=-7),
}


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_parse_single_example_values_defaults_and_shapes():
    serialized = tf.placeholder(tf.string, [])
    parsed = tf.parse_single_example(serialized, FEATURES)
    assert parsed["xy"].shape.as_list() == [2] and parsed["label"].shape.ndims == 0
    assert parsed["steps"].shape.as_list() == [None]
    assert isinstance(parsed["tags"], tf.SparseTensor)
    out = _run(parsed, {serialized: example(image=[b"\x00\x01"], label=[3],
                                            tags=[b"a", b"b"], steps=[4, 5, 6])})
    assert out["image"] == b"\x00\x01" and out["label"] == 3
    np.testing.assert_array_equal(out["xy"], np.float32([-1, -1]))     # the default
    assert out["tags"].indices.tolist() == [[0], [1]]
    assert out["tags"].values.tolist() == [b"a", b"b"] and out["tags"].dense_shape == [2]
    assert out["steps"].tolist() == [4, 5, 6]
    empty = _run(parsed, {serialized: example(image=[b""], label=[0])})
    assert empty["steps"].shape == (0,) and empty["tags"].indices.shape == (0, 1)


def test_parse_example_batches_pads_and_sparse_indices():
    batch = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(batch, FEATURES)
    assert parsed["xy"].shape.as_list() == [None, 2]
    assert parsed["steps"].shape.as_list() == [None, None]
    out = _run(parsed, {batch: [
        example(image=[b"p"], label=[1], xy=[0.5, 1.5], tags=[b"x"], steps=[1, 2]),
        example(image=[b"q"], label=[2], tags=[b"y", b"z"]),
        example(image=[b"r"], label=[3], steps=[9])]})
    assert out["image"].tolist() == [b"p", b"q", b"r"] and out["label"].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(out["xy"], np.float32([[0.5, 1.5], [-1, -1], [-1, -1]]))
    # FixedLenSequenceFeature: padded with its default_value to the longest example.
    assert out["steps"].tolist() == [[1, 2], [-7, -7], [9, -7]]
    assert out["tags"].indices.tolist() == [[0, 0], [1, 0], [1, 1]]
    assert out["tags"].values.tolist() == [b"x", b"y", b"z"]
    assert out["tags"].dense_shape.tolist() == [3, 2]


def test_multi_dimensional_fixed_and_sequence_features():
    serialized = tf.placeholder(tf.string, [])
    parsed = tf.parse_single_example(serialized, {
        "m": tf.FixedLenFeature([2, 3], tf.float32),
        "rows": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)})
    assert parsed["rows"].shape.as_list() == [None, 2]
    out = _run(parsed, {serialized: example(m=[float(i) for i in range(6)],
                                            rows=[1, 2, 3, 4])})
    np.testing.assert_array_equal(out["m"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert out["rows"].tolist() == [[1, 2], [3, 4]]


def test_graph_def_has_tf_1_15_op_types_and_attrs():
    parsed = tf.parse_single_example(tf.placeholder(tf.string, []), FEATURES)
    batch = tf.parse_example(tf.placeholder(tf.string, [None]), FEATURES)
    nodes = {n.name: n for n in tf.get_default_graph().as_graph_def().node}
    single = nodes[parsed["label"].op.name]
    assert single.op == "ParseSingleExample" and single.name.endswith("ParseSingleExample")
    assert list(single.attr["dense_keys"].list.s) == [b"image", b"label", b"steps", b"xy"]
    assert list(single.attr["sparse_keys"].list.s) == [b"tags"]
    assert single.attr["num_sparse"].i == 1
    assert [[d.size for d in s.dim] for s in single.attr["dense_shapes"].list.shape] == [
        [], [], [-1], [2]]
    many = nodes[batch["label"].op.name]
    assert many.op == "ParseExample" and many.attr["Nsparse"].i == 1
    assert many.attr["Ndense"].i == 4 and len(many.input) == 2 + 1 + 4 + 4


def test_required_feature_missing_wrong_type_and_size():
    serialized = tf.placeholder(tf.string, [])
    parsed = tf.parse_single_example(serialized, {"a": tf.FixedLenFeature([2], tf.float32),
                                                  "c": tf.VarLenFeature(tf.string)})
    cases = [
        (example(c=[b"x"]), "Feature: a (data type: float) is required but could not be found."),
        (example(a=[1, 2]), "Key: a.  Data types don't match. Data type: int64 but expected "
                            "type: float"),
        (example(a=[1.0]), "Key: a.  Can't parse serialized Example: Some float_list slice was "
                           "not parsed."),
        (example(a=[1.0, 2.0], c=[3]), "Key: c.  Data types don't match. Expected type: "
                                       "string, Actual type: int64"),
        (b"garbage", "Could not parse example input, value: 'garbage'")]
    with tf.Session() as sess:
        for data, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(parsed, {serialized: data})
            assert str(info.value).startswith(message)


def test_batch_errors_name_the_example():
    batch = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(batch, {"a": tf.FixedLenFeature([2], tf.float32)},
                              example_names=["first", "second"])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(parsed, {batch: [example(a=[1.0, 2.0]), example(a=[1.0])]})
    assert str(info.value).startswith(
        "Name: second, Key: a, Index: 1.  Number of float values != expected.  Values size: "
        "1 but output shape: [2]")


@pytest.mark.parametrize("features,error,message", [
    ({}, ValueError, "Missing: features was {}."),
    ({"a": tf.FixedLenFeature([None], tf.float32)}, ValueError,
     "First dimension of shape for feature a unknown. Consider using FixedLenSequenceFeature."),
    ({"a": tf.FixedLenSequenceFeature([], tf.int64)}, ValueError,
     "Unsupported: FixedLenSequenceFeature requires allow_missing to be True."),
    ({"a": tf.FixedLenFeature([], tf.int32)}, TypeError,
     "Value passed to parameter 'dense_defaults' has DataType int32 not in list of allowed "
     "values: float32, int64, string"),
    ({"a": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0, 3.0])}, ValueError,
     "Cannot reshape a tensor with 3 elements to shape [2] (2 elements)")])
def test_bad_feature_specs_fail_when_building(features, error, message):
    with pytest.raises(error) as info:
        tf.parse_example(tf.placeholder(tf.string, [None]), features)
    assert str(info.value).startswith(message)


def test_single_example_needs_a_scalar():
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.parse_single_example(tf.placeholder(tf.string, [3]),
                                {"a": tf.FixedLenFeature([], tf.int64)})


def _sequence():
    seq = tf.train.SequenceExample()
    seq.context.feature["length"].int64_list.value.append(3)
    for step in ([1, 2], [3, 4], [5, 6]):
        seq.feature_lists.feature_list["pairs"].feature.add().int64_list.value.extend(step)
    for words in ([b"a"], [], [b"b", b"c"]):
        f = seq.feature_lists.feature_list["words"].feature.add()
        f.bytes_list.value.extend(words)
    return seq.SerializeToString()


def test_parse_single_sequence_example():
    serialized = tf.placeholder(tf.string, [])
    context, lists = tf.parse_single_sequence_example(
        serialized, context_features={"length": tf.FixedLenFeature([], tf.int64),
                                      "lang": tf.FixedLenFeature([], tf.string,
                                                                 default_value="en")},
        sequence_features={"pairs": tf.FixedLenSequenceFeature([2], tf.int64),
                           "words": tf.VarLenFeature(tf.string),
                           "absent": tf.FixedLenSequenceFeature([], tf.float32,
                                                                allow_missing=True)})
    assert lists["pairs"].shape.as_list() == [None, 2]
    c, s = _run((context, lists), {serialized: _sequence()})
    assert c["length"] == 3 and c["lang"] == b"en"
    assert s["pairs"].tolist() == [[1, 2], [3, 4], [5, 6]]
    assert s["words"].indices.tolist() == [[0, 0], [2, 0], [2, 1]]
    assert s["words"].dense_shape.tolist() == [3, 2] and s["absent"].shape == (0,)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Feature list 'pairs' is required but could not be found"):
            no_lists = tf.train.SequenceExample()
            no_lists.context.feature["length"].int64_list.value.append(0)
            sess.run(lists, {serialized: no_lists.SerializeToString()})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Context feature 'length' is required but could not be found"):
            sess.run(lists, {serialized: tf.train.SequenceExample().SerializeToString()})
