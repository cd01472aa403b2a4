"""tf.summary ops against TensorFlow's: the same serialized Summary protos (tags, the
histogram's buckets and statistics, the text plugin's metadata, the WAV bytes) and the
same image pixels (PNG bytes differ by compressor; the decoded pixels must not). Skips
without TensorFlow."""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import errors_of_both, first_line, run_both, tensorflow_v1

pytestmark = pytest.mark.reference

IMAGES = np.linspace(-1.0, 2.0, 2 * 3 * 5 * 3, dtype=np.float32).reshape(2, 3, 5, 3)
IMAGES[0, 0, 0, 1] = np.nan                    # painted bad_color (red)
HIST = np.array([-3.0, 0.0, 0.0, 1e-13, 0.5, 7.0, 1e30, -1e-20], np.float32)
SOUND = np.sin(np.linspace(0, 20, 600)).reshape(3, 200).astype(np.float32) * 1.2


def _summaries(build):
    theirs, ours = run_both(lambda tf: (build(tf), None))
    return ([tfteach.Summary.FromString(v) for v in theirs],
            [tfteach.Summary.FromString(v) for v in ours])


def test_scalar_tags_scopes_families_and_merge():
    def build(tf):
        with tf.name_scope("train"):
            a = tf.summary.scalar("loss", tf.constant(1.5))
            b = tf.summary.scalar("loss", tf.constant(2.5), family="fam")
            c = tf.summary.scalar("bad name!", tf.constant(3, tf.int32))
        return [a, b, c, tf.summary.merge([a, b, c])]
    theirs, ours = _summaries(build)
    assert ours == theirs


def test_histogram_buckets_equal_tensorflows():
    theirs, ours = _summaries(lambda tf: [tf.summary.histogram("h", tf.constant(HIST)),
                                          tf.summary.histogram("e", tf.zeros([0]))])
    assert ours == theirs


def test_text_and_tensor_summaries_equal_tensorflows():
    theirs, ours = _summaries(lambda tf: [
        tf.summary.text("tx", tf.constant(["a", "b"])),
        tf.summary.tensor_summary("t", tf.constant([[1, 2], [3, 4]]))])
    assert ours == theirs


def test_audio_wav_bytes_equal_tensorflows():
    theirs, ours = _summaries(lambda tf: [tf.summary.audio("au", tf.constant(SOUND), 4000,
                                                           max_outputs=2)])
    assert ours == theirs


def test_media_tags_count_the_outputs_asked_for_not_those_made():
    # One image with the default max_outputs=3 is "one/image/0"; three with
    # max_outputs=1 are "three/image" (TF's kernels: "the tag depends on the number of
    # requested images (not the number produced)"). Audio alike.
    theirs, ours = _summaries(lambda tf: [
        tf.summary.image("one", tf.constant(IMAGES[:1])),
        tf.summary.image("three", tf.constant(IMAGES), max_outputs=1),
        tf.summary.audio("clip", tf.constant(SOUND[:1]), 4000)])
    tags = [[v.tag for v in summary.value] for summary in ours]
    assert tags == [["one/image/0"], ["three/image"], ["clip/audio/0"]]
    assert tags == [[v.tag for v in summary.value] for summary in theirs]


@pytest.mark.parametrize("images, max_outputs", [
    (IMAGES, 1), (IMAGES, 3), (np.abs(IMAGES[..., :1]), 5), (IMAGES[..., :1] * 0, 2),
    ((IMAGES * 50 + 100).clip(0, 255).astype(np.uint8), 2)])
def test_image_pixels_equal_tensorflows(images, max_outputs):
    theirs, ours = _summaries(lambda tf: [tf.summary.image("im", tf.constant(images),
                                                           max_outputs=max_outputs)])
    tf = tensorflow_v1()
    assert [v.tag for v in ours[0].value] == [v.tag for v in theirs[0].value]
    with tf.Session(graph=tf.Graph()) as sess:
        for o, t in zip(ours[0].value, theirs[0].value):
            assert (o.image.height, o.image.width, o.image.colorspace) == \
                (t.image.height, t.image.width, t.image.colorspace)
            got, expected = sess.run([tf.image.decode_png(o.image.encoded_image_string),
                                      tf.image.decode_png(t.image.encoded_image_string)])
            np.testing.assert_array_equal(got, expected)


def test_histogram_of_nan_is_tensorflows_error():
    theirs, ours = errors_of_both(lambda tf: (
        tf.summary.histogram("h", tf.constant([1.0, np.nan])), None))
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)


def test_merge_with_duplicate_tags_is_tensorflows_error():
    def build(tf):
        a = tf.summary.scalar("x", tf.constant(1.0), collections=[])
        return tf.summary.merge([a, a]), None
    theirs, ours = errors_of_both(build)
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert first_line(ours) in str(theirs)


def test_a_closed_file_writer_warns_as_tensorflows(tmp_path):
    found = []
    for tf in (tensorflow_v1(), tfteach):
        writer = tf.summary.FileWriter(str(tmp_path / tf.__name__))
        writer.close()
        with pytest.warns(UserWarning) as record:
            writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="t",
                                                                  simple_value=1.0)]))
            writer.flush()
        found.append([str(w.message) for w in record])
    assert found[1] == found[0] == 2 * [
        "Attempting to use a closed FileWriter. The operation will be a noop unless the "
        "FileWriter is explicitly reopened."]


def test_merge_names_its_op_in_a_scope_of_its_name_as_tensorflow():
    # name_scope(name, "Merge") around MergeSummary(name=name): "mm/mm", "Merge_1/...".
    names = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            a = tf.summary.scalar("a", tf.constant(1.0))
            with tf.name_scope("train"):
                b = tf.summary.scalar("b", tf.constant(2.0))
                merged = [tf.summary.merge_all(), tf.summary.merge([a, b], name="mm")]
            merged += [tf.summary.merge_all(), tf.summary.merge([a], name="mm"),
                       tf.summary.merge_all(name="all"), tf.summary.merge([b], name="a b")]
            names.append([t.name for t in merged])
    assert names[1] == ["train/Merge/MergeSummary:0", "train/mm/mm:0", "Merge/MergeSummary:0",
                        "mm/mm:0", "all/all:0", "a_b/a_b:0"]
    assert names[1] == names[0]


def test_summary_ops_and_their_inputs_are_named_as_tensorflows():
    # TF's op wrappers name a converted input after the op's input: loss/tags, h/tag,
    # au/sample_rate, tx/serialized_summary_metadata, in the summary's scope.
    def build(tf):
        a = tf.constant(1.0, name="a")
        tf.summary.scalar("loss", a)
        tf.summary.histogram("h", a)
        tf.summary.image("im", tf.zeros([1, 2, 2, 1]))
        tf.summary.audio("au", tf.zeros([1, 4]), 8000)
        tf.summary.text("tx", tf.constant("s"))
        tf.summary.tensor_summary("ts", a, summary_description="d")
        tf.summary.merge_all()
    ops = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default() as graph:
            build(tf)
            ops.append([(op.name, op.type) for op in graph.get_operations()])
    assert ops[1][:3] == [("a", "Const"), ("loss/tags", "Const"), ("loss", "ScalarSummary")]
    assert ops[1] == ops[0]


@pytest.mark.parametrize("summary, dtype", [("scalar", "bool"), ("histogram", "string"),
                                            ("image", "int32")])
def test_a_tensor_of_a_dtype_the_op_refuses_is_tensorflows_type_error(summary, dtype):
    # Their `T` attrs: TF's realnumbertypes; an image uint8 or a float.
    messages = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            value = tf.zeros([1, 2, 2, 1], tf.as_dtype(dtype))
            with pytest.raises(TypeError) as info:
                getattr(tf.summary, summary)("s", value)
            messages.append(str(info.value))
    assert messages[1] == messages[0]
    assert messages[1].startswith("Value passed to parameter '%s' has DataType %s not in "
                                  "list of allowed values: " % (
                                      "tensor" if summary == "image" else "values", dtype))


def test_summary_iterator_reports_a_damaged_file_as_tensorflow(tmp_path):
    # TF reads an event file with its TFRecord reader: a missing file, a truncated or a
    # corrupted record are its NotFoundError / DataLossError, after the good events.
    import glob
    writer = tfteach.summary.FileWriter(str(tmp_path / "logs"))
    for step in range(3):
        writer.add_summary(tfteach.Summary(value=[tfteach.Summary.Value(
            tag="x", simple_value=step)]), step)
    writer.close()
    data = open(glob.glob(str(tmp_path / "logs" / "events.*"))[0], "rb").read()
    (tmp_path / "truncated").write_bytes(data[:-5])
    (tmp_path / "flipped").write_bytes(data[:30] + bytes([data[30] ^ 1]) + data[31:])
    found = []
    for tf in (tensorflow_v1(), tfteach):
        for name in ("truncated", "flipped", "missing"):
            steps = []
            with pytest.raises(tf.errors.OpError) as info:
                for event in tf.train.summary_iterator(str(tmp_path / name)):
                    steps.append(event.step)
            # TF 2 appends "' failed with Read less bytes than requested" (not in 1.15)
            found.append((steps, type(info.value).__name__,
                          str(info.value).split("'")[0]))
    assert found[3:] == found[:3]
    assert found[3][:2] == ([0, 0, 1], "DataLossError")
    assert found[3][2].startswith("truncated record at ")
    assert found[5][1:] == ("NotFoundError", "%s; No such file or directory"
                            % (tmp_path / "missing"))
