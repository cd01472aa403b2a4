"""Example parsing against TensorFlow: the same dense values and SparseTensorValues for
the same serialized Examples, the same error words for bad ones, and tfteach's GraphDef
(TF 1.15's ParseExample / ParseSingleExample ops) runs in TensorFlow. Skips without TF."""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytestmark = pytest.mark.reference


def _feature(train, values):
    if not values:                               # an empty bytes_list
        return train.Feature(bytes_list=train.BytesList())
    if isinstance(values[0], bytes):
        return train.Feature(bytes_list=train.BytesList(value=values))
    if isinstance(values[0], float):
        return train.Feature(float_list=train.FloatList(value=values))
    return train.Feature(int64_list=train.Int64List(value=values))


def _example(**features):
    train = tfteach.train
    return train.Example(features=train.Features(feature={
        k: _feature(train, v) for k, v in features.items()})).SerializeToString()


GOOD = [_example(img=[b"\x00\xffraw"], label=[4], xy=[0.25, -2.0], tags=[b"a", b"b"],
                 seq=[1, 2, 3, 4], f=[1.5]),
        _example(img=[b""], label=[-9], tags=[], seq=[7, 8]),
        _example(img=[b"z"], label=[2 ** 40], f=[2.5, 3.5, 4.5])]


def _features(tf):
    return {"img": tf.FixedLenFeature([], tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
            "xy": tf.FixedLenFeature([2], tf.float32, default_value=[9.0, 8.0]),
            "tags": tf.VarLenFeature(tf.string),
            "f": tf.VarLenFeature(tf.float32),
            "seq": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True,
                                              default_value=-1)}


def _same(theirs, ours):
    assert sorted(theirs) == sorted(ours)
    for key in theirs:
        a, b = theirs[key], ours[key]
        if type(a).__name__ == "SparseTensorValue":
            assert type(b).__name__ == "SparseTensorValue", key
            for x, y in zip(a, b):
                assert np.asarray(x).dtype == np.asarray(y).dtype, key
                np.testing.assert_array_equal(x, y)
        else:
            assert np.asarray(a).dtype == np.asarray(b).dtype, key
            np.testing.assert_array_equal(a, b)


def test_parse_single_example_equals_tensorflows():
    for record in GOOD:
        theirs, ours = run_both(lambda tf: (tf.parse_single_example(record, _features(tf)),
                                            None))
        _same(theirs, ours)


def test_parse_example_batch_equals_tensorflows():
    theirs, ours = run_both(lambda tf: (tf.parse_example(tf.constant(GOOD), _features(tf)),
                                        None))
    _same(theirs, ours)


def test_parse_single_sequence_example_equals_tensorflows():
    train = tfteach.train
    seq = train.SequenceExample()
    seq.context.feature["n"].int64_list.value.append(2)
    seq.context.feature["who"].bytes_list.value.extend([b"x", b"y"])
    for step in ([1.0, 2.0], [3.0, 4.0]):
        seq.feature_lists.feature_list["v"].feature.add().float_list.value.extend(step)
    for ids in ([5], [], [6, 7]):
        seq.feature_lists.feature_list["ids"].feature.add().int64_list.value.extend(ids)
    data = seq.SerializeToString()

    def build(tf):
        return tf.parse_single_sequence_example(
            data, context_features={"n": tf.FixedLenFeature([], tf.int64),
                                    "who": tf.VarLenFeature(tf.string),
                                    "d": tf.FixedLenFeature([1], tf.float32, default_value=[0.5])},
            sequence_features={"v": tf.FixedLenSequenceFeature([2], tf.float32),
                               "ids": tf.VarLenFeature(tf.int64),
                               "gone": tf.FixedLenSequenceFeature([], tf.string,
                                                                  allow_missing=True)}), None
    theirs, ours = run_both(build)
    _same(theirs[0], ours[0])
    _same(theirs[1], ours[1])


BAD_SINGLE = [_example(label=[1]),                          # img is required
              _example(img=[b"a"], label=[1.0]),            # wrong type
              _example(img=[b"a"], label=[1], xy=[1.0]),    # wrong size
              _example(img=[b"a"], label=[1], tags=[3]),    # sparse of the wrong type
              _example(img=[b"a"], label=[1], seq=[1, 2, 3]),   # not whole rows
              b"garbage"]


# Named cases: a serialized map's order differs between processes, so the bytes would make
# test ids that differ too (pytest-xdist's workers must collect the same ids).
BAD_NAMES = ["no_img", "wrong_type", "wrong_size", "sparse_wrong_type", "not_whole_rows",
             "garbage"]


@pytest.mark.parametrize("record", BAD_SINGLE, ids=BAD_NAMES)
def test_single_example_errors_as_tensorflows(record):
    theirs, ours = errors_of_both(lambda tf: (tf.parse_single_example(record, _features(tf)),
                                              None))
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)


@pytest.mark.parametrize("position", range(len(BAD_SINGLE) - 1))
def test_batch_errors_as_tensorflows(position):
    batch = [GOOD[0], BAD_SINGLE[position]]
    theirs, ours = errors_of_both(lambda tf: (tf.parse_example(
        tf.constant(batch), _features(tf), example_names=["ok", "bad"]), None))
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)


def test_our_graph_def_runs_in_tensorflow():
    graph = tfteach.Graph()
    with graph.as_default():
        serialized = tfteach.placeholder(tfteach.string, [None], name="serialized")
        parsed = tfteach.parse_example(serialized, _features(tfteach))
        one = tfteach.parse_single_example(serialized[0], _features(tfteach))
        names = {k: v.name for k, v in parsed.items() if not isinstance(v, tfteach.SparseTensor)}
        names.update({"one_" + k: v.name for k, v in one.items()
                      if not isinstance(v, tfteach.SparseTensor)})
        graph_def = graph.as_graph_def().SerializeToString()
        with tfteach.Session() as sess:
            ours = sess.run(names, {serialized: GOOD})
    tf = tensorflow_v1()
    with tf.Graph().as_default() as tf_graph:
        tf.import_graph_def(tf.GraphDef.FromString(graph_def), name="")
        with tf.Session(graph=tf_graph) as sess:
            theirs = sess.run(names, {"serialized:0": GOOD})
    _same(theirs, ours)
