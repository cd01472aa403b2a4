"""tf.data on tfteach and on TensorFlow (`tf.compat.v1`, graph mode): the same pipelines
give the same elements, dtypes and static shapes, and bad input the same error class
and words. Shuffles are compared as permutations only (TF draws with Philox, tfteach
with NumPy); everything deterministic is compared element by element.
"""
import numpy as np
import pytest

import tfteach
from tf_reference import own_message, tensorflow_v1

pytest.importorskip("tensorflow")
pytestmark = pytest.mark.reference


def _drain(tf, build, limit=500):
    """(static (dtype, shape) of every component, the elements) of build(tf)'s dataset."""
    with tf.Graph().as_default():
        dataset = build(tf)
        nxt = tf.data.make_one_shot_iterator(dataset).get_next()
        flat = [t for t in _leaves(nxt)]
        specs = [(t.dtype.name, t.shape.as_list() if t.shape.ndims is not None else None)
                 for t in flat]
        out = []
        with tf.Session() as sess:
            for _ in range(limit):
                try:
                    out.append([np.asarray(v) for v in sess.run(flat)])
                except tf.errors.OutOfRangeError:
                    return specs, out
    raise AssertionError("no end within %d elements" % limit)


def _leaves(value):
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _leaves(value[k])]
    if isinstance(value, tuple):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _same(build):
    theirs = _drain(tensorflow_v1(), build)
    ours = _drain(tfteach, build)
    assert ours[0] == theirs[0], "static dtypes/shapes differ"
    assert len(ours[1]) == len(theirs[1])
    for a, b in zip(ours[1], theirs[1]):
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    return ours


X = np.arange(24, dtype=np.float32).reshape(6, 4)
ROWS = [[1], [2, 2, 2], [3, 3], [4], [5, 5, 5, 5]]
NUL_STRINGS = [b"ab\x00", b"c\x00\x00", b"", b"x"]

PIPELINES = {
    "slices_tuple_dict": lambda tf: tf.data.Dataset.from_tensor_slices(
        ({"x": X, "i": np.arange(6)}, np.arange(6) % 2 == 0)),
    "slices_list": lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]),
    "from_tensors": lambda tf: tf.data.Dataset.from_tensors((X, 3.5)),
    "range3": lambda tf: tf.data.Dataset.range(10, 0, -3),
    "zip": lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(4),
                                           tf.data.Dataset.from_tensor_slices(X))),
    "concatenate": lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(7, 9)),
    "map": lambda tf: tf.data.Dataset.from_tensor_slices(X).map(
        lambda r: (tf.reduce_sum(r), r * 2.0, [tf.cast(r[0], tf.int32), 7])),
    "map_capture": lambda tf: tf.data.Dataset.range(4).map(
        lambda x: x * tf.constant(3, tf.int64)),
    "map_dict": lambda tf: tf.data.Dataset.from_tensor_slices({"a": X, "b": X[:, 0]}).map(
        lambda d: {"s": d["a"] + d["b"], "b": d["b"]}),
    "filter": lambda tf: tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 4, 1)),
    "flat_map": lambda tf: tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x)),
    "interleave": lambda tf: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + x), cycle_length=3,
        block_length=2),
    "batch": lambda tf: tf.data.Dataset.from_tensor_slices(X).batch(4),
    "batch_drop": lambda tf: tf.data.Dataset.from_tensor_slices((X, np.arange(6))).batch(
        4, drop_remainder=True),
    "padded_batch": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter(ROWS), tf.int32, [None]).padded_batch(2, [None]),
    "padded_batch_fixed": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter(ROWS), tf.int32, [None]).padded_batch(3, [5], padding_values=-1),
    # a known element shape padded to a larger one (before: "The padded shape (4,) is not
    # compatible with the corresponding input component shape (2,).")
    "padded_batch_larger": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.arange(6).reshape(3, 2)).padded_batch(2, [4]),
    "repeat_take_skip": lambda tf: tf.data.Dataset.range(5).repeat(3).skip(4).take(8),
    "take_all": lambda tf: tf.data.Dataset.range(5).take(-1),
    "unbatch": lambda tf: tf.data.Dataset.from_tensor_slices(X.reshape(3, 2, 4)).apply(
        tf.data.experimental.unbatch()),
    "map_and_batch": lambda tf: tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch(lambda x: (x, x * x), 3)),
    "map_and_batch_drop": lambda tf: tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch(lambda x: x * 2, 3, drop_remainder=True)),
    # (before: tfteach had no tf.data.experimental.enumerate_dataset)
    "enumerate_dataset": lambda tf: tf.data.Dataset.from_tensor_slices(X).apply(
        tf.data.experimental.enumerate_dataset(start=2)),
    "parallel_interleave": lambda tf: tf.data.Dataset.range(1, 5).apply(
        tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2,
            block_length=2)),
    "generator": lambda tf: tf.data.Dataset.from_generator(
        lambda: ((i, [float(i)] * i) for i in range(4)), (tf.int64, tf.float32),
        (tf.TensorShape([]), tf.TensorShape([None]))),
    "prefetch_cache": lambda tf: tf.data.Dataset.range(4).cache().repeat(2).prefetch(1),
    "strings": lambda tf: tf.data.Dataset.from_tensor_slices(["a", "bc", ""]).map(
        lambda s: (s, "x")).batch(2),
    # strings ending in NUL bytes (a serialized Example can) keep them through batch,
    # unbatch, padded_batch and an op of a map function (before, NumPy's bytes dtype
    # dropped them: b"ab\x00" came out b"ab")
    "strings_nul": lambda tf: tf.data.Dataset.from_tensor_slices(NUL_STRINGS).map(
        lambda s: (s, tf.stack([s]))).batch(2),
    "strings_nul_unbatch": lambda tf: tf.data.Dataset.from_tensors(NUL_STRINGS).apply(
        tf.data.experimental.unbatch()).padded_batch(3, ([])),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_same_elements_and_static_shapes_as_tensorflow(name):
    _same(PIPELINES[name])


def test_shuffle_is_a_permutation_like_tensorflows():
    def build(tf):
        return tf.data.Dataset.range(40).shuffle(10, seed=4).repeat(2)

    for _, elements in (_drain(tensorflow_v1(), build), _drain(tfteach, build)):
        values = [int(e[0]) for e in elements]
        assert sorted(values[:40]) == sorted(values[40:]) == list(range(40))
        assert all(pos >= v - 9 for pos, v in enumerate(values[:40]))


def test_seeded_shuffle_orders_across_epochs_and_initialisations_like_tensorflow():
    def program(tf):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.range(12).shuffle(12, seed=5).repeat(2)
            it = tf.data.make_initializable_iterator(ds)
            nxt = it.get_next()
            runs = []
            with tf.Session() as sess:
                for _ in range(2):
                    sess.run(it.initializer)
                    runs.append([int(sess.run(nxt)) for _ in range(24)])
            with tf.Session() as sess:
                sess.run(it.initializer)
                runs.append([int(sess.run(nxt)) for _ in range(24)])
            return (runs[0] == runs[1] == runs[2], runs[0][:12] != runs[0][12:],
                    sorted(runs[0][12:]) == list(range(12)))

    assert program(tfteach) == program(tensorflow_v1()) == (True, True, True)


def _error(tf, build):
    with tf.Graph().as_default():
        try:
            dataset, run = build(tf)
            with tf.Session() as sess:
                run(sess, tf.data.make_one_shot_iterator(dataset).get_next())
        except Exception as e:  # noqa: BLE001 - the error is what we compare
            return type(e).__name__, str(e)
    return None, ""


def _twice(sess, nxt):
    sess.run(nxt)
    sess.run(nxt)


ERRORS = {
    "slice_sizes": (lambda tf: (tf.data.Dataset.from_tensor_slices(
        (np.arange(3), np.arange(2))), None), "Dimensions 3 and 2 are not compatible"),
    "slice_scalar": (lambda tf: (tf.data.Dataset.from_tensor_slices(3), None),
                     "Unbatching a tensor is only supported for rank >= 1"),
    "generator_shape": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: iter([[1, 2], [1, 2, 3]]), tf.int64, [2]), _twice),
        "`generator` yielded an element of shape (3,) where an element of shape (2,) was "
        "expected."),
    "generator_type": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: iter(["abc"]), tf.int64), lambda s, n: s.run(n)),
        # TF 1.15 goes on "could not be converted to the expected type" (tfteach, and
        # test_data.py); TF 2 folds it into "did not match the expected structure".
        "`generator` yielded an element that "),
    # what the generator itself raises is the error of TF's py_func around it (before:
    # InvalidArgumentError "division by zero", InternalError "KeyError: 'k'")
    "generator_raises": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: (1 / 0 for _ in range(2)), tf.float32), lambda s, n: s.run(n)),
        "ZeroDivisionError: division by zero\nTraceback (most recent call last):"),
    "generator_raises_value_error": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: (int("x") for _ in range(2)), tf.int32), lambda s, n: s.run(n)),
        "ValueError: invalid literal for int() with base 10: 'x'\nTraceback"),
    "generator_raises_key_error": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: ({}["k"] for _ in range(2)), tf.int32), lambda s, n: s.run(n)),
        "KeyError: 'k'\nTraceback"),
    "batch_shapes": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: iter([[1], [1, 2]]), tf.int64).batch(2), lambda s, n: s.run(n)),
        "Cannot batch tensors with different shapes in component 0. First element had "
        "shape [1] and element 1 had shape [2]."),
    "end": (lambda tf: (tf.data.Dataset.range(1), _twice), "End of sequence"),
    "unbatch_sizes": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: iter([([1, 2], [1, 2, 3])]), (tf.int64, tf.int64)).apply(
        tf.data.experimental.unbatch()), lambda s, n: s.run(n)),
        "Input element must have the same batch size in each component. Component 0 had "
        "size 2 but component 1 had size, 3."),          # TF's comma
    "batch_size_zero": (lambda tf: (tf.data.Dataset.range(3).batch(0),
                                    lambda s, n: s.run(n)),
                        "Batch size must be greater than zero."),
    "shuffle_buffer_zero": (lambda tf: (tf.data.Dataset.range(3).shuffle(0),
                                        lambda s, n: s.run(n)),
                            # TF 2 goes on "or UNKNOWN_CARDINALITY"
                            "buffer_size must be greater than zero"),
    "padded_too_small": (lambda tf: (tf.data.Dataset.from_generator(
        lambda: iter([[1], [1, 2, 3]]), tf.int64, [None]).padded_batch(2, [2]),
        lambda s, n: s.run(n)), "Attempted to pad to a smaller size than the input element."),
    "one_shot_placeholder": (lambda tf: (tf.data.Dataset.range(
        tf.placeholder(tf.int64, [])), None),
        "Cannot capture a placeholder (name:Placeholder, type:Placeholder) by value."),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_same_error_class_and_words_as_tensorflow(name):
    build, words = ERRORS[name]
    theirs = _error(tensorflow_v1(), build)
    ours = _error(tfteach, build)
    assert ours[0] == theirs[0]
    assert words in theirs[1] and words in ours[1]


def _build_error(build):
    def of(tf):
        with tf.Graph().as_default():
            try:
                build(tf)
            except Exception as e:  # noqa: BLE001 - the error is what we compare
                return type(e).__name__, str(e)
        return None, ""
    return of(tensorflow_v1()), of(tfteach)


BUILD_ERRORS = {
    # a padding value of another dtype than its component (a Python int, int32, for an
    # int64 one) is refused; before, tfteach converted it. TF 1.15's words "Padding value
    # tensor (...) does not match output type: <dtype: 'int64'>" (tfteach's, checked in
    # test_data.py), TF 2's "Invalid `padding_values`": the dtype text is compared.
    "padding_value_type": (lambda tf: tf.data.Dataset.range(3).map(
        lambda x: tf.fill([x], x)).padded_batch(2, [None], padding_values=-7),
        "<dtype: 'int64'>"),
    # TF 1.15 says "Two datasets to concatenate have different types ..." (tfteach's
    # words); TF 2 "Incompatible dataset elements": only the class is compared.
    "concatenate_types": (lambda tf: tf.data.Dataset.range(3).concatenate(
        tf.data.Dataset.from_tensor_slices([1.0, 2.0])), ""),
    "initializer_types": (lambda tf: tf.data.Iterator.from_structure(
        tf.int64, []).make_initializer(tf.data.Dataset.from_tensor_slices([1.0])),
        "Expected output types tf.int64 but got dataset with output types tf.float32."),
    # TF 2's TensorShape repr is TensorShape([2]); TF 1.15's (and tfteach's) names
    # the Dimension: the words before it are compared.
    "initializer_shapes": (lambda tf: tf.data.Iterator.from_structure(
        tf.int64, [2]).make_initializer(tf.data.Dataset.range(3)),
        "Expected output shapes compatible with TensorShape(["),
}


@pytest.mark.parametrize("name", sorted(BUILD_ERRORS))
def test_build_time_errors_like_tensorflow(name):
    build, words = BUILD_ERRORS[name]
    theirs, ours = _build_error(build)
    assert ours[0] == theirs[0] == "TypeError"
    assert words in theirs[1] and words in ours[1]


def test_tfrecord_files_cross_between_tensorflow_and_tfteach(tmp_path):
    tf1 = tensorflow_v1()
    records = [b"", b"x", bytes(range(256)) * 3]
    for compression in ("", "GZIP", "ZLIB"):
        theirs = str(tmp_path / ("tf_%s.tfrecord" % compression))
        ours = str(tmp_path / ("tt_%s.tfrecord" % compression))
        with tf1.io.TFRecordWriter(theirs, tf1.io.TFRecordOptions(compression)) as w:
            for r in records:
                w.write(r)
        from tfteach.io.tfrecord import RecordFileWriter
        writer = RecordFileWriter(ours, compression)
        for r in records:
            writer.write(r)
        writer.close()
        for path in (theirs, ours):
            for tf in (tf1, tfteach):
                _, got = _drain(tf, lambda tf: tf.data.TFRecordDataset(
                    [path], compression_type=compression))
                assert [bytes(e[0].item()) for e in got] == records


def test_parse_example_of_batched_records_like_tensorflow(tmp_path):
    """Batched serialized Examples whose last byte is 0 (an int64 feature of value 0
    written last) parse: before, the batch dropped that byte and ParseExample failed
    ("Could not parse example input")."""
    path = str(tmp_path / "examples.tfrecord")
    with tfteach.python_io.TFRecordWriter(path) as writer:
        for i in range(3):
            writer.write(tfteach.train.Example(features=tfteach.train.Features(feature={
                "x": tfteach.train.Feature(float_list=tfteach.train.FloatList(value=[i])),
                "label": tfteach.train.Feature(
                    int64_list=tfteach.train.Int64List(value=[i]))})).SerializeToString())

    def build(tf):
        features = {"x": tf.FixedLenFeature([1], tf.float32),
                    "label": tf.FixedLenFeature([], tf.int64)}
        return tf.data.TFRecordDataset(path).batch(3).map(
            lambda s: tf.parse_example(s, features))

    ours = _same(build)
    assert ours[1][0][0].tolist() == [0, 1, 2]


def _records_until_error(tf, path):
    """(records read, the error class that ended the reading or None)."""
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset(path)).get_next()
        got = []
        with tf.Session() as sess:
            while True:
                try:
                    got.append(bytes(sess.run(nxt)))
                except tf.errors.OutOfRangeError:
                    return got, None
                except tf.errors.OpError as e:
                    return got, type(e).__name__


def test_damaged_and_truncated_tfrecord_files_like_tensorflow(tmp_path):
    from tfteach.io.tfrecord import RecordFileWriter
    whole = str(tmp_path / "whole")
    writer = RecordFileWriter(whole)
    for r in (b"first", b"", b"x" * 300):
        writer.write(r)
    writer.close()
    raw = open(whole, "rb").read()
    damaged = {"data_bit": bytearray(raw), "length_bit": bytearray(raw)}
    damaged["data_bit"][12 + 2] ^= 4                # in the first record's data
    damaged["length_bit"][21 + 16 + 3] ^= 1         # in the third record's length
    for keep in (1, 11, 12, 40, 311):               # the last record cut short
        damaged["keep_%d" % keep] = raw[:37 + keep]
    for name, data in damaged.items():
        path = str(tmp_path / name)
        with open(path, "wb") as f:
            f.write(bytes(data))
        assert _records_until_error(tfteach, path) == \
            _records_until_error(tensorflow_v1(), path), name


def test_text_and_fixed_length_files_like_tensorflow(tmp_path):
    text = tmp_path / "lines.txt"
    text.write_bytes(b"alpha\nbeta\r\n\ngamma")
    _same(lambda tf: tf.data.TextLineDataset([str(text), str(text)]))
    binary = tmp_path / "fixed.bin"
    binary.write_bytes(bytes(range(47)))
    _same(lambda tf: tf.data.FixedLengthRecordDataset(str(binary), 7, header_bytes=2,
                                                       footer_bytes=3))
    binary.write_bytes(bytes(range(50)))          # a body of 45 bytes: not whole records

    def uneven(tf):
        return tf.data.FixedLengthRecordDataset(str(binary), 7, header_bytes=2,
                                                footer_bytes=3), lambda s, n: s.run(n)

    theirs, ours = _error(tensorflow_v1(), uneven), _error(tfteach, uneven)
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    words = ("has body length 45 bytes, which is not an exact multiple of the record "
             "length (7 bytes).")
    assert words in theirs[1] and words in ours[1]


def test_feedable_and_reinitializable_iterators_like_tensorflow():
    def program(tf):
        with tf.Graph().as_default():
            train = tf.data.Dataset.range(6).map(lambda x: x * 2).batch(2)
            valid = tf.data.Dataset.range(100, 103).map(lambda x: x * 2).batch(2)
            it = tf.data.Iterator.from_structure(
                tf.data.get_output_types(train), tf.data.get_output_shapes(train))
            nxt = it.get_next()
            handle = tf.placeholder(tf.string, [])
            feedable = tf.data.Iterator.from_string_handle(
                handle, tf.data.get_output_types(train), tf.data.get_output_shapes(train))
            fed_next = feedable.get_next()
            one = tf.data.make_one_shot_iterator(train)
            out = [nxt.shape.as_list(), fed_next.shape.as_list()]
            with tf.Session() as sess:
                sess.run(it.make_initializer(train))
                out.append(sess.run(nxt).tolist())
                sess.run(it.make_initializer(valid))
                out.append(sess.run(nxt).tolist())
                out.append(sess.run(nxt).tolist())
                h = sess.run(one.string_handle())
                out.append(sess.run(fed_next, {handle: h}).tolist())
                out.append(sess.run(fed_next, {handle: h}).tolist())
            return out

    assert program(tfteach) == program(tensorflow_v1())


def test_iterators_from_structure_take_output_classes_like_tensorflow():
    """`output_classes` of `from_structure` / `from_string_handle` makes a component a
    SparseTensor (before, tfteach ignored it: make_initializer refused a dataset of
    SparseTensors, "Expected output classes <class '...Tensor'> ...")."""
    def program(tf):
        with tf.Graph().as_default():
            sp = tf.SparseTensor(indices=[[0, 1]], values=[1.0], dense_shape=[2, 3])
            ds = tf.data.Dataset.from_tensors(sp).repeat(2)
            structure = dict(output_types=tf.data.get_output_types(ds),
                             output_shapes=tf.data.get_output_shapes(ds),
                             output_classes=tf.data.get_output_classes(ds))
            it = tf.data.Iterator.from_structure(**structure)
            init, nxt = it.make_initializer(ds), it.get_next()
            handle = tf.placeholder(tf.string, [])
            fed = tf.data.Iterator.from_string_handle(handle, **structure).get_next()
            one = tf.data.make_one_shot_iterator(ds)
            out = [type(nxt).__name__, type(fed).__name__,
                   it.output_classes.__name__, nxt.dense_shape.shape.as_list()]
            with tf.Session() as sess:
                sess.run(init)
                value = sess.run(nxt)
                out.append([value.indices.tolist(), value.values.tolist(),
                            value.dense_shape.tolist()])
                value = sess.run(fed, {handle: sess.run(one.string_handle())})
                out.append([value.indices.tolist(), value.values.tolist(),
                            value.dense_shape.tolist()])
            return out

    assert program(tfteach) == program(tensorflow_v1())


def test_iterator_op_names_like_tensorflow():
    """TF 1.15 names `make_initializer`'s op `make_initializer` (a name scope) and makes
    each iterator's IteratorToStringHandle with it, which `string_handle()` returns.
    Before, tfteach named them MakeIterator_1 and made a new handle op at every call."""
    def program(tf):
        with tf.Graph().as_default() as graph:
            dataset = tf.data.Dataset.range(3)
            one = tf.data.make_one_shot_iterator(dataset)
            init = tf.data.make_initializable_iterator(dataset)
            it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
            made = [it.make_initializer(dataset).name,
                    it.make_initializer(dataset, name="valid_init").name]
            handles = [one.string_handle().name, one.string_handle().name,
                       it.string_handle(name="mine").name, init.initializer.name]
            # the iterators' nodes are named IteratorV2, IteratorV2_1 (before: Iterator)
            return made, handles, [(op.name, op.type) for op in graph.get_operations()
                                   if op.type != "Const"]

    assert program(tfteach) == program(tensorflow_v1())


def test_seeded_random_map_restarts_like_tensorflow():
    def program(tf):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.range(3).map(lambda x: tf.random_uniform([], seed=3))
            it = tf.data.make_initializable_iterator(ds)
            nxt = it.get_next()
            with tf.Session() as sess:
                runs = []
                for _ in range(2):
                    sess.run(it.initializer)
                    runs.append([float(sess.run(nxt)) for _ in range(3)])
            return runs[0] == runs[1], len(set(runs[0]))

    assert program(tfteach) == program(tensorflow_v1()) == (True, 3)


def test_list_files_and_reading_files_of_a_dataset_like_tensorflow(tmp_path):
    for name, text in [("b.txt", b"b1\nb2\n"), ("a.txt", b"a1\n"), ("c.csv", b"c\n")]:
        (tmp_path / name).write_bytes(text)
    pattern = str(tmp_path / "*.txt")
    ordered = _same(lambda tf: tf.data.Dataset.list_files(pattern, shuffle=False))
    assert [bytes(e[0].item()) for e in ordered[1]] == [str(tmp_path / n).encode()
                                                       for n in ("a.txt", "b.txt")]
    _same(lambda tf: tf.data.TextLineDataset(tf.data.Dataset.list_files(pattern,
                                                                         shuffle=False)))
    for tf in (tensorflow_v1(), tfteach):
        _, shuffled = _drain(tf, lambda tf: tf.data.Dataset.list_files(pattern, seed=3))
        assert sorted(bytes(e[0].item()) for e in shuffled) == \
            [bytes(e[0].item()) for e in ordered[1]]
    none = str(tmp_path / "*.none")

    def no_match(tf):
        # An initializable iterator: the assertion fails in its initializer (TF 2's
        # one-shot iterator ends the sequence instead of reporting it).
        with tf.Graph().as_default():
            it = tf.data.make_initializable_iterator(tf.data.Dataset.list_files(none))
            with tf.Session() as sess:
                try:
                    sess.run(it.initializer)
                except tf.errors.OpError as e:
                    return type(e).__name__, str(e)
        return None, ""

    theirs, ours = no_match(tensorflow_v1()), no_match(tfteach)
    assert ours[0] == theirs[0] == "InvalidArgumentError"
    assert "No files matched pattern: " + none in theirs[1]
    assert "No files matched pattern: " + none in ours[1]


def test_read_file_pipeline_like_tensorflow(tmp_path):
    """`tf.read_file` (TF 1.15's ReadFile; tfteach had none: AttributeError): a file's
    bytes, here the first step of an image pipeline, and its errors."""
    from tfteach.io.png_format import encode as encode_png
    for i in range(3):
        image = np.full((2, 3, 1), 40 * i, np.uint8)
        (tmp_path / ("im%d.png" % i)).write_bytes(encode_png(image))
    (tmp_path / "raw.bin").write_bytes(b"ab\x00")

    def build(tf):
        return tf.data.Dataset.list_files(str(tmp_path / "*.png"), shuffle=False).map(
            lambda f: tf.image.decode_png(tf.read_file(f)))

    ours = _same(build)
    assert [int(e[0][0, 0, 0]) for e in ours[1]] == [0, 40, 80]

    def program(tf):
        with tf.Graph().as_default():
            raw = tf.io.read_file(str(tmp_path / "raw.bin"))
            missing = tf.read_file(str(tmp_path / "nope.bin"))
            out = [raw.name, raw.op.inputs[0].name, raw.shape.as_list()]
            try:
                tf.read_file([str(tmp_path / "raw.bin")])
            except ValueError as e:
                out.append(str(e).split(" for ")[0])
            with tf.Session() as sess:
                out.append(sess.run(raw))
                try:
                    sess.run(missing)
                except tf.errors.NotFoundError as e:
                    out.append(own_message(e))
            return out

    assert program(tfteach) == program(tensorflow_v1())


def test_note_004_tfrecord_example_program_like_tensorflow(tmp_path):
    """Note 004's TFRecordDataset program: VarLenFeatures parsed in a map, batched,
    fetched as SparseTensorValues."""
    tf1 = tensorflow_v1()
    path = str(tmp_path / "foo.tfrecords")
    with tf1.python_io.TFRecordWriter(path) as writer:
        for vals, labels, name in [([0.25, -0.5, 1.25, 0.75], [1], b"aa"),
                                   ([2.0], [3, 4], b"bb"), ([], [], b"")]:
            example = tf1.train.Example(features=tf1.train.Features(feature={
                "val": tf1.train.Feature(float_list=tf1.train.FloatList(value=vals)),
                "labels": tf1.train.Feature(int64_list=tf1.train.Int64List(value=labels)),
                "name": tf1.train.Feature(bytes_list=tf1.train.BytesList(value=[name]))}))
            writer.write(example.SerializeToString())

    def program(tf):
        with tf.Graph().as_default():
            def parse_example_record(example):
                features = {"val": tf.VarLenFeature(tf.float32),
                            "labels": tf.VarLenFeature(tf.int64),
                            "name": tf.VarLenFeature(tf.string)}
                return tf.parse_single_example(example, features)

            dataset = tf.data.TFRecordDataset([path]).map(parse_example_record).batch(2)
            feature_dict = tf.data.make_one_shot_iterator(dataset).get_next()
            static = {k: (type(v).__name__, v.dtype.name) for k, v in feature_dict.items()}
            out = []
            with tf.Session() as sess:
                for _ in range(2):
                    got = sess.run(feature_dict)
                    out.append({k: (np.asarray(v.indices).tolist(),
                                    np.asarray(v.values).tolist(),
                                    np.asarray(v.dense_shape).tolist())
                                for k, v in got.items()})
            return static, out

    assert program(tfteach) == program(tf1)


def _traced_argument_names(tf):
    """The names of the tensors a dataset function is traced with (lesson 28 prints one)."""
    seen = []

    def scale(n, label):
        seen.extend([n.name, label.name])
        return n, label
    with tf.Graph().as_default():
        tf.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])).map(scale)
    return seen


def test_traced_function_arguments_are_named_as_tensorflow_names_them():
    # TF traces wrapper_fn(*args): its placeholders are args_0, args_1 (tfteach: arg0)
    assert _traced_argument_names(tfteach) == _traced_argument_names(tensorflow_v1())
