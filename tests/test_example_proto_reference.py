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
    # the same text format too, as TF 1.15's protobuf printed it (text_format, maps
    # sorted by key; test_printed_as_tf_1_15_printed_maps_sorted_by_key)
    from google.protobuf import text_format
    assert str(ours) == text_format.MessageToString(theirs)


def _lesson_example(train):
    # lesson 29's Example: features built in the order val, labels, name
    return train.Example(features=train.Features(feature={
        "val": train.Feature(float_list=train.FloatList(value=[1.5, -2.0])),
        "labels": train.Feature(int64_list=train.Int64List(value=[1])),
        "name": train.Feature(bytes_list=train.BytesList(value=[b"aa"]))}))


@pytest.mark.parametrize("make", [_lesson_example, _sequence])
def test_printed_as_tf_1_15_printed_maps_sorted_by_key(make):
    # TF 1.15's protobuf printed a message with text_format, a map's entries sorted by key
    # ('labels', 'name', 'val'); protobuf 4+'s upb prints them as inserted, which tfteach
    # (and TF 2.21) did. The reference: text_format of TF's own message.
    from google.protobuf import text_format
    ours = make(tfteach.train)
    theirs = tensorflow_v1().train
    expected = text_format.MessageToString(make(theirs))
    assert str(ours) == expected
    if make is _lesson_example:
        assert expected.index('"labels"') < expected.index('"name"') < expected.index('"val"')
