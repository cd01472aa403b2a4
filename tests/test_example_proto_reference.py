"""tf.train.Example & co against TensorFlow's messages: the same bytes for the same
message, and each parses the other's bytes into an equal message. Skips without TF."""
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1

pytestmark = pytest.mark.reference


def _example(train):
    return train.Example(features=train.Features(feature={
        "image_raw": train.Feature(bytes_list=train.BytesList(value=[bytes(range(256)), b""])),
        "label": train.Feature(int64_list=train.Int64List(value=[7, -1, 2 ** 62])),
        "pixels": train.Feature(float_list=train.FloatList(value=[0.5, -1e-30, 3e38])),
        "empty": train.Feature(),
        "empty_list": train.Feature(float_list=train.FloatList())}))


def _sequence(train):
    seq = train.SequenceExample(context=train.Features(feature={
        "length": train.Feature(int64_list=train.Int64List(value=[2]))}))
    tokens = seq.feature_lists.feature_list["tokens"]
    tokens.feature.add().bytes_list.value.extend([b"hello", b"world"])
    tokens.feature.add().bytes_list.value.append(b"!")
    seq.feature_lists.feature_list["scores"].feature.add().float_list.value.extend([1.5, 2.5])
    return seq


@pytest.mark.parametrize("make", [_example, _sequence])
def test_serialized_bytes_equal_tensorflows_and_parse_both_ways(make):
    tf = tensorflow_v1()
    theirs, ours = make(tf.train), make(tfteach.train)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert type(ours).FromString(theirs.SerializeToString()) == ours
    assert type(theirs).FromString(ours.SerializeToString()) == theirs
    assert str(ours) == str(theirs)                  # the same text format too
