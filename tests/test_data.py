"""tf.data: every transformation against a Python reference, iterators, bad input.

Expected values are computed here with plain Python/NumPy from the same inputs;
TensorFlow's own outputs, shapes and words are compared in test_data_reference.py.
"""
import collections
import gzip
import os
import threading
import zlib

import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.io.tfrecord import RecordFileWriter


def _all(sess, element, feed=None, limit=1000):
    """Every element an iterator's `get_next()` gives until OutOfRangeError."""
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(element, feed))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("the dataset did not end within %d elements" % limit)


def _elements(dataset):
    with tf.Session(graph=dataset.graph) as sess:
        return _all(sess, dataset.make_one_shot_iterator().get_next())


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as graph:
        yield graph


# -- sources -----------------------------------------------------------------------------------
def test_from_tensor_slices_nested_tuple_and_dict():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([b"a", b"b", b"c", b"d"], dtype=object)
    ds = tf.data.Dataset.from_tensor_slices(({"x": x, "n": np.arange(4)}, y))
    assert ds.output_types == ({"n": tf.int64, "x": tf.float32}, tf.string)
    assert ds.output_shapes[0]["x"].as_list() == [3]
    assert ds.output_shapes[1].as_list() == []
    got = _elements(ds)
    assert len(got) == 4
    for i, (features, label) in enumerate(got):
        np.testing.assert_array_equal(features["x"], x[i])
        assert features["n"] == i and label == y[i]


def test_from_tensor_slices_list_is_one_tensor_not_a_structure():
    ds = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]])
    assert ds.output_types == tf.int32 and ds.output_shapes.as_list() == [2]
    assert [e.tolist() for e in _elements(ds)] == [[1, 2], [3, 4], [5, 6]]


def test_element_structure_treats_lists_as_leaves_where_tf_nest_does_not():
    """data/structure.py packs with ops/nest.py's code under tf.data's rule (a list is a
    value); both count the leaves before packing (TF's ValueError, not an IndexError)."""
    from tfteach.data import structure
    from tfteach.ops import nest
    Point = collections.namedtuple("Point", "x y")
    element = (1, [2, 3], {"b": 5, "a": Point(4, 6)})
    assert structure.flatten(element) == [1, [2, 3], 4, 6, 5]
    assert nest.flatten(element) == [1, 2, 3, 4, 6, 5]
    assert structure.pack(element, "pqrst") == ("p", "q", {"a": Point("r", "s"), "b": "t"})
    with pytest.raises(ValueError, match="Structure had 5 elements, but flat_sequence had 4"):
        structure.pack(element, "pqrs")
    with pytest.raises(ValueError, match="Structure had 6 elements, but flat_sequence had 7"):
        nest.pack_sequence_as(element, range(7))


def test_from_tensor_slices_sizes_must_agree():
    with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
        tf.data.Dataset.from_tensor_slices((np.arange(3), np.arange(2)))
    with pytest.raises(ValueError, match="only supported for rank >= 1"):
        tf.data.Dataset.from_tensor_slices(3)


def test_from_tensor_slices_of_a_fed_placeholder_checks_sizes_at_run_time():
    a = tf.placeholder(tf.int32, [None])
    b = tf.placeholder(tf.int32, [None])
    it = tf.data.Dataset.from_tensor_slices((a, b)).make_initializable_iterator()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Dimensions 3 and 2 are not compatible"):
            sess.run(it.initializer, {a: [1, 2, 3], b: [1, 2]})


def test_from_tensors_is_one_element():
    ds = tf.data.Dataset.from_tensors((np.arange(3), 7.0))
    assert ds.output_shapes[0].as_list() == [3]
    (only,) = _elements(ds)
    assert only[0].tolist() == [0, 1, 2] and only[1] == 7.0


@pytest.mark.parametrize("args", [(5,), (2, 7), (10, 0, -3), (3, 3), (0, 10, 4)])
def test_range_is_pythons_range_in_int64(args):
    ds = tf.data.Dataset.range(*args)
    assert ds.output_types == tf.int64 and ds.output_shapes.as_list() == []
    got = _elements(ds)
    assert got == list(range(*args))
    assert all(np.asarray(v).dtype == np.int64 for v in got)


def test_zip_and_concatenate():
    a = tf.data.Dataset.range(5)
    b = tf.data.Dataset.from_tensor_slices(np.arange(3) * 10.0)
    zipped = tf.data.Dataset.zip((a, {"b": b}))
    assert zipped.output_types == (tf.int64, {"b": tf.float64})
    assert [(x, d["b"]) for x, d in _elements(zipped)] == [(0, 0.0), (1, 10.0), (2, 20.0)]
    c = tf.data.Dataset.range(5, 7)
    assert _elements(a.concatenate(c)) == [0, 1, 2, 3, 4, 5, 6]
    with pytest.raises(TypeError, match="different types"):
        a.concatenate(b)


def test_concatenate_relaxes_static_shapes():
    a = tf.data.Dataset.from_tensors(np.zeros((2, 3)))
    b = tf.data.Dataset.from_tensors(np.zeros((2, 5)))
    assert a.concatenate(b).output_shapes.as_list() == [2, None]


# -- map, filter, flat_map, interleave -----------------------------------------------------------
def test_map_traces_once_and_runs_per_element():
    calls = []

    def fn(x, y):
        calls.append(1)
        return {"sum": x + y, "sq": tf.square(x)}, [x, 2]

    ds = tf.data.Dataset.from_tensor_slices((np.arange(4), np.arange(4) * 10)).map(fn)
    assert len(calls) == 1
    # A list inside the result is one tensor (TF's nest for tf.data: lists are values).
    assert ds.output_types == ({"sq": tf.int64, "sum": tf.int64}, tf.int64)
    assert ds.output_shapes[1].as_list() == [2]
    got = _elements(ds)
    assert [(d["sum"], d["sq"], pair.tolist()) for d, pair in got] == [
        (i + 10 * i, i * i, [i, 2]) for i in range(4)]
    assert len(calls) == 1


def test_map_returning_a_list_gives_a_tuple_of_components():
    # TF 1.15: a returned list is a tuple (its items need not stack into one tensor).
    ds = tf.data.Dataset.range(3).map(lambda x: [x, tf.cast(x, tf.float32) / 2.0, "s"])
    assert ds.output_types == (tf.int64, tf.float32, tf.string)
    assert _elements(ds) == [(i, i / 2.0, b"s") for i in range(3)]


def test_map_of_one_component_and_of_a_dict_pass_one_argument():
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]})
    assert _elements(ds.map(lambda d: d["a"] * d["b"])) == [3, 8]
    assert _elements(tf.data.Dataset.range(3).map(lambda x: x * 2)) == [0, 2, 4]


def test_map_captures_outer_tensors_when_the_iterator_is_initialised():
    scale = tf.placeholder(tf.int64, [])
    offset = tf.constant(100, tf.int64)
    ds = tf.data.Dataset.range(3).map(lambda x: x * scale + offset)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    fn_graph = ds.traced_functions[-1]
    assert fn_graph is not tf.get_default_graph()
    assert {op.type for op in fn_graph.get_operations()} >= {"Placeholder", "Mul", "AddV2"}
    with tf.Session() as sess:
        sess.run(it.initializer, {scale: 2})
        assert _all(sess, nxt) == [100, 102, 104]
        sess.run(it.initializer, {scale: 5})
        assert _all(sess, nxt) == [100, 105, 110]


def test_filter_keeps_elements_the_predicate_accepts():
    ds = tf.data.Dataset.range(20).filter(lambda x: tf.equal(x % 3, 0))
    assert _elements(ds) == [x for x in range(20) if x % 3 == 0]
    with pytest.raises(ValueError, match="scalar boolean tensor"):
        tf.data.Dataset.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="scalar boolean tensor"):
        tf.data.Dataset.range(3).filter(lambda x: tf.equal(x, [1, 2]))


def test_flat_map_chains_the_datasets_the_function_returns():
    ds = tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x))
    assert _elements(ds) == [x for x in range(4) for _ in range(x)]
    with pytest.raises(TypeError, match="must return a `Dataset`"):
        tf.data.Dataset.range(3).flat_map(lambda x: x)


def _interleave_reference(inputs, make, cycle_length, block_length):
    """TF's InterleaveDatasetOp loop, on Python lists."""
    inputs, out = iter(inputs), []
    current, cycle, block, num_open, end = [None] * cycle_length, 0, 0, 0, False
    while not end or num_open:
        if current[cycle] is not None:
            item = next(current[cycle], None)
            if item is not None:
                out.append(item)
                block += 1
                if block == block_length:
                    block, cycle = 0, (cycle + 1) % cycle_length
                continue
            current[cycle], num_open = None, num_open - 1
            block, cycle = 0, (cycle + 1) % cycle_length
        elif not end:
            x = next(inputs, None)
            if x is None:
                end = True
            else:
                current[cycle], num_open = iter(make(x)), num_open + 1
        else:
            block, cycle = 0, (cycle + 1) % cycle_length
    return out


@pytest.mark.parametrize("cycle, block", [(1, 1), (2, 1), (2, 3), (3, 2), (5, 1)])
def test_interleave_follows_tfs_cycle(cycle, block):
    ds = tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + x), cycle_length=cycle,
        block_length=block)
    expected = _interleave_reference(range(1, 6), lambda x: range(x * 10, x * 10 + x),
                                     cycle, block)
    assert _elements(ds) == expected
    assert sorted(expected) == sorted(x * 10 + i for x in range(1, 6) for i in range(x))


# -- batching ------------------------------------------------------------------------------------
def test_batch_shapes_and_values():
    x = np.arange(14).reshape(7, 2)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(7)))
    batched = ds.batch(3)
    assert [s.as_list() for s in batched.output_shapes] == [[None, 2], [None]]
    got = _elements(batched)
    assert [b[1].tolist() for b in got] == [[0, 1, 2], [3, 4, 5], [6]]
    np.testing.assert_array_equal(got[2][0], x[6:])
    dropped = ds.batch(3, drop_remainder=True)
    assert [s.as_list() for s in dropped.output_shapes] == [[3, 2], [3]]
    assert [b[1].tolist() for b in _elements(dropped)] == [[0, 1, 2], [3, 4, 5]]


def test_batch_of_different_shapes_is_refused():
    ds = tf.data.Dataset.from_generator(lambda: iter([[1], [1, 2]]), tf.int64).batch(2)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Cannot batch tensors with different shapes in component 0"):
            sess.run(ds.make_one_shot_iterator().get_next())


def test_padding_values_must_have_the_components_dtype():
    # TF 1.15's words (dataset_ops._padding_value_to_tensor); TF 2 rewords them, so the
    # class is checked against TensorFlow in test_data_reference.py
    ds = tf.data.Dataset.range(3).map(lambda x: tf.fill([x], x))
    with pytest.raises(TypeError, match=r"^Padding value tensor \(Tensor\(\"padding_value:0\", "
                                        r"shape=\(\), dtype=int32\)\) does not match output "
                                        r"type: <dtype: 'int64'>$"):
        ds.padded_batch(2, [None], padding_values=-7)
    with pytest.raises(ValueError, match="Padding value should be a scalar, but is not"):
        ds.padded_batch(2, [None], padding_values=np.array([1, 2]))
    assert ds.padded_batch(2, [None], padding_values=np.int64(-7)).output_types == tf.int64


def test_padded_batch_pads_to_the_longest_or_the_given_shape():
    rows = [[1], [2, 2, 2], [3, 3], [4]]
    ds = tf.data.Dataset.from_generator(lambda: iter(rows), tf.int32, [None])
    longest = ds.padded_batch(2, padded_shapes=[None])
    assert longest.output_shapes.as_list() == [None, None]
    assert [b.tolist() for b in _elements(longest)] == [[[1, 0, 0], [2, 2, 2]],
                                                        [[3, 3], [4, 0]]]
    fixed = ds.padded_batch(3, padded_shapes=[4], padding_values=-1)
    assert fixed.output_shapes.as_list() == [None, 4]
    assert [b.tolist() for b in _elements(fixed)] == [
        [[1, -1, -1, -1], [2, 2, 2, -1], [3, 3, -1, -1]], [[4, -1, -1, -1]]]
    too_small = ds.padded_batch(2, padded_shapes=[2])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError, match="pad to a smaller size"):
            sess.run(too_small.make_one_shot_iterator().get_next())


def test_unbatch_and_map_and_batch():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 4))
    assert _elements(ds.unbatch()) == list(range(12))
    assert _elements(ds.apply(tf.data.experimental.unbatch())) == list(range(12))
    mb = tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch(lambda x: x * x, 3))
    assert mb.output_shapes.as_list() == [None]
    assert [b.tolist() for b in _elements(mb)] == [[0, 1, 4], [9, 16, 25], [36]]
    mb_drop = tf.data.Dataset.range(7).apply(
        tf.data.experimental.map_and_batch(lambda x: x * x, 3, drop_remainder=True))
    assert mb_drop.output_shapes.as_list() == [3]


# -- repeat, take, skip, prefetch, cache ---------------------------------------------------------
def test_repeat_take_skip_prefetch():
    ds = tf.data.Dataset.range(4)
    assert _elements(ds.repeat(3)) == list(range(4)) * 3
    assert _elements(ds.repeat().take(10)) == (list(range(4)) * 3)[:10]
    assert _elements(ds.take(2)) == [0, 1]
    assert _elements(ds.take(-1)) == [0, 1, 2, 3]
    assert _elements(ds.skip(3)) == [3]
    assert _elements(ds.skip(-1)) == []
    assert _elements(ds.prefetch(2)) == [0, 1, 2, 3]
    assert _elements(ds.filter(lambda x: tf.equal(x, 99)).repeat()) == []


def test_cache_replays_the_first_pass():
    seen = []

    def gen():
        seen.append(1)
        yield from range(3)

    ds = tf.data.Dataset.from_generator(gen, tf.int64).cache().repeat(3)
    assert _elements(ds) == [0, 1, 2] * 3
    assert len(seen) == 1
    uncached = tf.data.Dataset.from_generator(gen, tf.int64).repeat(3)
    seen.clear()
    assert _elements(uncached) == [0, 1, 2] * 3 and len(seen) == 3


# -- shuffle -------------------------------------------------------------------------------------
def _shuffled(seed, buffer_size, n=50, reshuffle=None, epochs=1):
    ds = tf.data.Dataset.range(n).shuffle(buffer_size, seed=seed,
                                          reshuffle_each_iteration=reshuffle).repeat(epochs)
    return _elements(ds)


def test_shuffle_is_a_permutation_within_the_buffer():
    for buffer_size in (1, 5, 50, 1000):
        got = _shuffled(7, buffer_size)
        assert sorted(got) == list(range(50))
        # Element i enters the buffer after buffer_size - 1 + i... reads: it cannot come out
        # before output position i - buffer_size + 1.
        for position, element in enumerate(got):
            assert position >= element - buffer_size + 1
    assert _shuffled(7, 1) == list(range(50))
    assert _shuffled(7, 50) != list(range(50))


def test_shuffle_seed_reproduces_and_reshuffles_each_epoch():
    first = _shuffled(3, 50, epochs=2)
    assert first == _shuffled(3, 50, epochs=2)       # a new session: the same orders
    assert first[:50] != first[50:]                    # a new order each epoch
    assert sorted(first[50:]) == list(range(50))
    fixed = _shuffled(3, 50, reshuffle=False, epochs=2)
    assert fixed[:50] == fixed[50:]
    orders = []
    for _ in range(2):
        with tf.Graph().as_default():      # the same program: the graph seed decides
            tf.set_random_seed(11)
            orders.append(_shuffled(None, 50))
    assert orders[0] == orders[1] != list(range(50))


def test_shuffle_starts_its_orders_again_at_each_initialisation():
    ds = tf.data.Dataset.range(30).shuffle(30, seed=5).repeat(2)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer)
        one = _all(sess, nxt)
        sess.run(it.initializer)
        two = _all(sess, nxt)
    assert one == two                             # TF: the seeds start again
    assert one[:30] != one[30:] and sorted(one[30:]) == list(range(30))


# -- from_generator ------------------------------------------------------------------------------
def test_from_generator_is_called_anew_each_pass():
    def gen():
        for i in range(3):
            yield i, [float(i)] * i

    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32),
                                        (tf.TensorShape([]), tf.TensorShape([None])))
    assert ds.output_shapes[1].as_list() == [None]
    got = _elements(ds.repeat(2))
    assert [(a, b.tolist()) for a, b in got] == [(i, [float(i)] * i) for i in range(3)] * 2
    assert got[2][1].dtype == np.float32


@pytest.mark.parametrize("values, types, shapes, words", [
    ([[1, 2], [1, 2, 3]], tf.int64, [2], "yielded an element of shape (3,) where an element "
                                         "of shape (2,) was expected"),
    (["abc"], tf.int64, None, "could not be converted to the expected type. The expected "
                              "type was int64"),
    ([(1, 2)], (tf.int64, tf.int64, tf.int64), None, "did not match the expected structure"),
])
def test_from_generator_bad_elements(values, types, shapes, words):
    ds = tf.data.Dataset.from_generator(lambda: iter(values), types, shapes)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        if len(values) > 1:
            sess.run(nxt)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(nxt)
    assert words in str(info.value)


# -- files ---------------------------------------------------------------------------------------
def test_text_line_dataset(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt.gz"
    a.write_bytes(b"one\ntwo\r\n\nthree")
    b.write_bytes(gzip.compress(b"four\nfive\n"))
    assert _elements(tf.data.TextLineDataset(str(a))) == [b"one", b"two", b"", b"three"]
    assert _elements(tf.data.TextLineDataset([str(b)], compression_type="GZIP")) == [
        b"four", b"five"]
    files = tf.data.Dataset.from_tensor_slices([str(a), str(a)])
    assert len(_elements(tf.data.TextLineDataset(files))) == 8
    missing = tf.data.TextLineDataset(str(tmp_path / "none.txt"))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
            sess.run(missing.make_one_shot_iterator().get_next())


def test_fixed_length_record_dataset(tmp_path):
    path = tmp_path / "fixed.bin"
    body = bytes(range(20))
    path.write_bytes(b"HDR" + body[:18] + b"FT")
    ds = tf.data.FixedLengthRecordDataset(str(path), record_bytes=6, header_bytes=3,
                                          footer_bytes=2)
    assert _elements(ds) == [body[0:6], body[6:12], body[12:18]]
    path.write_bytes(b"HDR" + body + b"FT")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="has body length 20 bytes, which is not an exact multiple "
                                 "of the record length"):
            sess.run(ds.make_one_shot_iterator().get_next())
    zpath = tmp_path / "fixed.z"
    zpath.write_bytes(zlib.compress(body))
    ds = tf.data.FixedLengthRecordDataset(str(zpath), 5, compression_type="ZLIB")
    assert _elements(ds) == [body[i:i + 5] for i in range(0, 20, 5)]


def test_tfrecord_dataset_reads_files_in_order(tmp_path):
    paths = []
    for k, compression in enumerate(["", "GZIP"]):
        path = str(tmp_path / ("r%d.tfrecord" % k))
        writer = RecordFileWriter(path, compression)
        for i in range(3):
            writer.write(b"file%d-record%d" % (k, i))
        writer.close()
        paths.append(path)
    assert _elements(tf.data.TFRecordDataset(paths[0])) == [b"file0-record%d" % i
                                                            for i in range(3)]
    assert _elements(tf.data.TFRecordDataset(paths[1], compression_type="GZIP")) == [
        b"file1-record%d" % i for i in range(3)]
    both = tf.data.TFRecordDataset([paths[0], paths[0]], num_parallel_reads=2)
    assert _elements(both) == [r for i in range(3) for r in [b"file0-record%d" % i] * 2]


def test_tfrecord_dataset_reports_a_corrupt_record(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    writer = RecordFileWriter(path)
    writer.write(b"good")
    writer.write(b"will be damaged")
    writer.close()
    raw = bytearray(open(path, "rb").read())
    raw[-6] ^= 0xFF
    open(path, "wb").write(bytes(raw))
    nxt = tf.data.TFRecordDataset(path).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == b"good"
        with pytest.raises(tf.errors.DataLossError, match="corrupted record"):
            sess.run(nxt)


def test_list_files(tmp_path):
    for name in ["b.csv", "a.csv", "c.txt"]:
        (tmp_path / name).write_text("x")
    pattern = str(tmp_path / "*.csv")
    ordered = _elements(tf.data.Dataset.list_files(pattern, shuffle=False))
    assert ordered == [str(tmp_path / n).encode() for n in ["a.csv", "b.csv"]]
    shuffled = _elements(tf.data.Dataset.list_files(pattern, seed=1))
    assert sorted(shuffled) == ordered
    empty = tf.data.Dataset.list_files(str(tmp_path / "*.none"))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
            sess.run(empty.make_one_shot_iterator().get_next())


# -- iterators -----------------------------------------------------------------------------------
def test_one_shot_iterator_ends_and_stays_ended():
    nxt = tf.data.Dataset.range(2).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt), sess.run(nxt)] == [0, 1]
        for _ in range(2):
            with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
                sess.run(nxt)
    with tf.Session() as sess:       # a new Session has its own iterator
        assert sess.run(nxt) == 0


def test_one_shot_iterator_refuses_placeholders_and_variables():
    p = tf.placeholder(tf.int64, [])
    with pytest.raises(ValueError, match=r"Cannot capture a placeholder \(name:Placeholder, "
                                         r"type:Placeholder\) by value"):
        tf.data.Dataset.range(p).make_one_shot_iterator()
    v = tf.Variable(1, dtype=tf.int64)
    with pytest.raises(ValueError, match="Cannot capture a stateful node"):
        tf.data.Dataset.range(3).map(lambda x: x + v).make_one_shot_iterator()


def test_initializable_iterator_must_be_initialised_and_can_restart():
    count = tf.placeholder(tf.int64, [])
    it = tf.data.Dataset.range(count).make_initializable_iterator()
    nxt = it.get_next()
    assert it.initializer.type == "MakeIterator"
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(nxt)
        sess.run(it.initializer, {count: 3})
        assert sess.run(nxt) == 0
        sess.run(it.initializer, {count: 2})
        assert _all(sess, nxt) == [0, 1]


def test_reinitializable_iterator_from_structure():
    train = tf.data.Dataset.range(5).map(lambda x: (x, tf.cast(x, tf.float32)))
    valid = tf.data.Dataset.range(100, 102).map(lambda x: (x, tf.cast(x, tf.float32)))
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    with pytest.raises(ValueError, match="does not have an initializer"):
        it.initializer
    nxt = it.get_next()
    assert [t.dtype for t in nxt] == [tf.int64, tf.float32]
    init_train, init_valid = it.make_initializer(train), it.make_initializer(valid)
    with pytest.raises(TypeError, match="Expected output types"):
        it.make_initializer(tf.data.Dataset.range(3))
    with tf.Session() as sess:
        sess.run(init_train)
        assert sess.run(nxt)[0] == 0
        sess.run(init_valid)
        assert [a for a, _ in _all(sess, nxt)] == [100, 101]


def test_feedable_iterator_from_string_handle():
    a = tf.data.Dataset.range(3).repeat()
    b = tf.data.Dataset.range(10, 13)
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
    nxt = it.get_next()
    it_a, it_b = a.make_one_shot_iterator(), b.make_initializable_iterator()
    with tf.Session() as sess:
        h_a, h_b = sess.run([it_a.string_handle(), it_b.string_handle()])
        assert isinstance(h_a, bytes) and h_a != h_b
        sess.run(it_b.initializer)
        got = [sess.run(nxt, {handle: h}) for h in (h_a, h_b, h_a, h_b, h_a)]
        assert got == [0, 10, 1, 11, 2]
        with pytest.raises(tf.errors.InvalidArgumentError, match="string_handle"):
            sess.run(nxt, {handle: b"nonsense"})


def test_get_next_static_shapes_and_names():
    ds = tf.data.Dataset.from_tensor_slices(np.zeros((10, 28, 28), np.float32)).batch(4)
    x = ds.make_one_shot_iterator().get_next()
    assert x.name == "IteratorGetNext:0" and x.shape.as_list() == [None, 28, 28]
    assert tf.data.get_output_shapes(ds).as_list() == [None, 28, 28]
    assert tf.data.get_output_types(ds) == tf.float32
    assert tf.data.get_output_classes(ds) is tf.Tensor


def test_two_threads_get_disjoint_elements():
    nxt = tf.data.Dataset.range(2000).make_one_shot_iterator().get_next()
    results = [[], []]
    with tf.Session() as sess:
        sess.run(nxt)                                # element 0, before the threads

        def drain(out):
            try:
                while True:
                    out.append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                pass

        threads = [threading.Thread(target=drain, args=(r,)) for r in results]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(results[0] + results[1]) == list(range(1, 2000))
    assert all(r == sorted(r) for r in results)      # each thread sees increasing values


# -- random ops in dataset functions ---------------------------------------------------------------
def test_seeded_random_op_in_map_restarts_with_each_iterator():
    ds = tf.data.Dataset.range(4).map(lambda x: tf.random_uniform([], seed=3))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer)
        first = _all(sess, nxt)
        sess.run(it.initializer)
        assert _all(sess, nxt) == first
    assert len(set(first)) == 4
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert _all(sess, nxt) == first


# -- the graph -----------------------------------------------------------------------------------
def test_the_pipeline_is_a_chain_of_dataset_ops():
    x = tf.placeholder(tf.float32, [None, 3])
    ds = (tf.data.Dataset.from_tensor_slices(x).map(lambda r: r * 2.0).shuffle(10)
          .batch(2).repeat())
    it = ds.make_initializable_iterator()
    it.get_next()
    chain, op = [], it.initializer.inputs[0].op
    while True:
        chain.append(op.type)
        variants = [t for t in op.inputs if t.dtype == tf.variant]
        if not variants:
            break
        op = variants[0].op
    assert chain == ["RepeatDataset", "BatchDatasetV2", "ShuffleDataset", "MapDataset",
                     "TensorSliceDataset"]
    map_op = [o for o in tf.get_default_graph().get_operations() if o.type == "MapDataset"][0]
    assert str(map_op.get_attr("f")).startswith("Dataset_map_")
    assert map_op.get_attr("output_types") == [tf.float32]
    # Written as TF 1.15 writes it: the function in the GraphDef's library
    # (tests/test_data_graph_io.py).
    graph_def = tf.get_default_graph().as_graph_def()
    written = [n for n in graph_def.node if n.op == "MapDataset"][0]
    assert written.attr["f"].func.name == str(map_op.get_attr("f"))
    assert [f.signature.name for f in graph_def.library.function] == [str(map_op.get_attr("f"))]


def test_notebook_export_draws_datasets_and_function_graphs():
    from tfteach.notebook.graph_export import export_graph
    ds = tf.data.Dataset.range(5).map(lambda x: x + 1).batch(2)
    ds.make_one_shot_iterator().get_next()
    doc = export_graph(tf.get_default_graph())
    kinds = {n["op"] for n in doc["nodes"]}
    assert {"RangeDataset", "MapDataset", "BatchDatasetV2", "OneShotIterator",
            "IteratorGetNext"} <= kinds
    (fn_graph,) = ds.traced_functions
    fn_doc = export_graph(fn_graph)
    assert {"Placeholder", "AddV2"} <= {n["op"] for n in fn_doc["nodes"]}


def test_dataset_repr_and_iter():
    ds = tf.data.Dataset.from_tensor_slices((np.arange(3), np.zeros((3, 2)))).batch(2)
    assert repr(ds) == ("<DatasetV1Adapter shapes: ((?,), (?, 2)), "
                        "types: (tf.int64, tf.float64)>")
    with pytest.raises(RuntimeError, match="only supported when eager execution"):
        iter(ds)


Point = collections.namedtuple("Point", "x y")


def test_namedtuple_elements_keep_their_type():
    ds = tf.data.Dataset.from_tensor_slices(Point(np.arange(3), np.arange(3) * 2))
    got = _elements(ds.map(lambda p: Point(p.y, p.x)))
    assert got == [Point(2 * i, i) for i in range(3)]
    assert isinstance(got[0], Point)



def test_pipeline_ops_stay_on_the_cpu_beside_a_virtual_gpu(virtual_gpus):
    virtual_gpus(1, memory_limit=256)
    ds = tf.data.Dataset.range(4).map(lambda x: x * 2).batch(2)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    doubled = tf.cast(nxt, tf.float32) * 2.0
    with tf.Session() as sess:
        sess.run(it.initializer)
        assert sess.run(doubled).tolist() == [0.0, 4.0]
        device_of = sess._placer.device_of
        for op in tf.get_default_graph().get_operations():
            if op.type.endswith("Dataset") or op.type in ("IteratorV2", "MakeIterator",
                                                          "IteratorGetNext"):
                assert device_of(op).name.endswith("CPU:0"), op.name
        assert device_of(doubled.op).name.endswith("GPU:0")


def test_contrib_data_map_and_batch_is_the_experimental_one():
    ds = tf.data.Dataset.range(5).apply(tf.contrib.data.map_and_batch(lambda x: -x, 2))
    assert [b.tolist() for b in _elements(ds)] == [[0, -1], [-2, -3], [-4]]


def test_nested_functions_capture_through_each_other():
    offset = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.range(1, 4).flat_map(
        lambda n: tf.data.Dataset.range(n).map(lambda m: m * 10 + n + offset))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    expected = [m * 10 + n for n in range(1, 4) for m in range(n)]
    with tf.Session() as sess:
        sess.run(it.initializer, {offset: 0})
        assert _all(sess, nxt) == expected
        sess.run(it.initializer, {offset: 1000})
        assert _all(sess, nxt) == [e + 1000 for e in expected]


def test_a_saver_and_a_summary_writer_work_beside_a_pipeline(tmp_path):
    ds = tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32))
    x = ds.make_one_shot_iterator().get_next()
    w = tf.Variable(1.0)
    out = w * x
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 0.0
        # The .meta holds the pipeline too (its map function in the graph's library).
        prefix = saver.save(sess, str(tmp_path / "model"))
        writer = tf.summary.FileWriter(str(tmp_path / "logs"), sess.graph)
        writer.close()
    assert tf.train.load_variable(prefix, w.op.name) == 1.0
    assert os.path.exists(prefix + ".meta")
    assert any(name.startswith("events.") for name in os.listdir(tmp_path / "logs"))


def test_repr_of_nested_elements_is_tfs():
    ds = tf.data.Dataset.from_tensor_slices({"b": np.zeros((2, 3)), "a": np.arange(2)})
    # the keys in the program's order: TF's nest packs a dict in its template's key order
    # (this asserted sorted keys before; tests/test_data_element_spec_reference.py)
    assert repr(ds) == "<DatasetV1Adapter shapes: {b: (3,), a: ()}, types: {b: tf.float64, " \
                       "a: tf.int64}>"
    single = tf.data.Dataset.range(3).batch(2)
    assert repr(single) == "<DatasetV1Adapter shapes: (?,), types: tf.int64>"


def test_padded_batch_of_one_component_takes_a_tuple_shape_and_dicts_per_key():
    rows = [[1], [2, 2]]
    ds = tf.data.Dataset.from_generator(lambda: iter(rows), tf.int64, [None])
    assert [b.tolist() for b in _elements(ds.padded_batch(2, (None,)))] == [[[1, 0], [2, 2]]]
    pairs = tf.data.Dataset.zip({"v": ds, "n": tf.data.Dataset.range(2)})
    padded = pairs.padded_batch(2, {"v": [3], "n": []}, padding_values={"v": np.int64(9),
                                                                        "n": np.int64(0)})
    (batch,) = _elements(padded)
    assert batch["v"].tolist() == [[1, 9, 9], [2, 2, 9]] and batch["n"].tolist() == [0, 1]


def test_unbatch_refuses_components_of_different_sizes_and_scalars():
    uneven = tf.data.Dataset.from_generator(lambda: iter([([1, 2], [1, 2, 3])]),
                                            (tf.int64, tf.int64)).unbatch()
    scalar = tf.data.Dataset.from_generator(lambda: iter([3]), tf.int64).unbatch()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Component 0 had size 2 but component 1 had size, 3"):
            sess.run(uneven.make_one_shot_iterator().get_next())
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-scalar value"):
            sess.run(scalar.make_one_shot_iterator().get_next())


def test_from_generator_args_are_evaluated_when_the_iterator_starts():
    n = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.from_generator(lambda k: iter(range(int(k))), tf.int64, [], args=(n,))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {n: 3})
        assert _all(sess, nxt) == [0, 1, 2]
        sess.run(it.initializer, {n: 1})
        assert _all(sess, nxt) == [0]


def test_a_captured_variable_is_read_when_the_iterator_is_initialised():
    v = tf.Variable(10, dtype=tf.int64)
    ds = tf.data.Dataset.range(3).map(lambda x: x + v)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(it.initializer)
        assert sess.run(nxt) == 10
        sess.run(tf.assign(v, 100))
        sess.run(it.initializer)
        assert _all(sess, nxt) == [100, 101, 102]


def test_a_function_cannot_use_a_tensor_of_an_unrelated_graph():
    with tf.Graph().as_default():
        stranger = tf.constant(1, tf.int64)
    with pytest.raises(ValueError, match="must be from the same graph"):
        tf.data.Dataset.range(3).map(lambda x: x + stranger)


def test_two_iterators_of_one_random_map_do_not_disturb_each_other():
    ds = tf.data.Dataset.range(4).map(lambda x: tf.random_uniform([], seed=7))
    first, second = ds.make_initializable_iterator(), ds.make_initializable_iterator()
    a, b = first.get_next(), second.get_next()
    with tf.Session() as sess:
        sess.run(first.initializer)
        alone = _all(sess, a)
        sess.run(first.initializer)
        head = [sess.run(a), sess.run(a)]
        sess.run(second.initializer)               # starts its own sequence
        assert head + [sess.run(a), sess.run(a)] == alone
        assert _all(sess, b) == alone


def test_shuffle_and_repeat_is_shuffle_then_repeat():
    fused = tf.data.Dataset.range(8).apply(
        tf.data.experimental.shuffle_and_repeat(8, count=2, seed=4))
    plain = tf.data.Dataset.range(8).shuffle(8, seed=4).repeat(2)
    got = _elements(fused)
    assert got == _elements(plain)
    assert sorted(got[:8]) == sorted(got[8:]) == list(range(8)) and got[:8] != got[8:]


# -- SparseTensor components ----------------------------------------------------------------------
def _sparse_value(st):
    return (np.asarray(st.indices).tolist(), np.asarray(st.values).tolist(),
            np.asarray(st.dense_shape).tolist())


def test_sparse_components_through_map_batch_and_get_next():
    st = tf.SparseTensor(indices=[[0, 1], [2, 0]], values=[5.0, 6.0], dense_shape=[3, 2])
    ds = tf.data.Dataset.from_tensors((st, 7))
    assert ds.output_classes == (tf.SparseTensor, tf.Tensor)
    assert ds.output_shapes[0].as_list() == [3, 2]
    doubled = ds.map(lambda s, n: (tf.SparseTensor(s.indices, s.values * 2.0, s.dense_shape),
                                   n + 1)).repeat(2).batch(2)
    assert doubled.output_shapes[0].as_list() == [None, 3, 2]
    sparse_out, dense_out = doubled.make_one_shot_iterator().get_next()
    assert isinstance(sparse_out, tf.SparseTensor) and sparse_out.dtype == tf.float32
    assert sparse_out.get_shape().as_list() == [None, 3, 2]          # as TF restores it
    with tf.Session() as sess:
        got, n = sess.run([sparse_out, dense_out])
    assert isinstance(got, tf.SparseTensorValue) and n.tolist() == [8, 8]
    # TF's batching of sparse tensors: the batch index first, the largest shape after it.
    assert _sparse_value(got) == ([[0, 0, 1], [0, 2, 0], [1, 0, 1], [1, 2, 0]],
                                  [10.0, 12.0, 10.0, 12.0], [2, 3, 2])


def test_batching_sparse_rows_of_different_lengths(tmp_path):
    path = str(tmp_path / "examples.tfrecord")
    with tf.python_io.TFRecordWriter(path) as writer:
        for values in ([1, 2, 3], [4], []):
            example = tf.train.Example(features=tf.train.Features(feature={
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=values))}))
            writer.write(example.SerializeToString())
    ds = tf.data.TFRecordDataset(path).map(
        lambda record: tf.parse_single_example(record, {"v": tf.VarLenFeature(tf.int64)}))
    (batch,) = _elements(ds.batch(3))
    assert _sparse_value(batch["v"]) == ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 2, 3, 4],
                                         [3, 3])


def test_sparse_components_refused_where_tf_refuses_or_tfteach_lacks_them():
    st = tf.SparseTensor(indices=[[0]], values=[1], dense_shape=[4])
    ds = tf.data.Dataset.from_tensors(st)
    with pytest.raises(TypeError, match="padded sparse tensors is not currently supported"):
        ds.padded_batch(2, [4])
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.data.Dataset.from_tensor_slices(st)
    with pytest.raises(TypeError, match="Expected output classes"):
        it = tf.data.Iterator.from_structure(tf.int32, [4])
        it.make_initializer(ds)
    # TF 1.15's words (iterator_ops.make_initializer): "output class" for the dataset's
    # (tfteach said "classes"; TF 2 later made both plural)
    with pytest.raises(TypeError, match=r"^Expected output classes <class '[\w.]*\.Tensor'> "
                                        r"but got dataset with output class <class "
                                        r"'[\w.]*\.SparseTensor'>\.$"):
        tf.data.Iterator.from_structure(tf.int32, [4]).make_initializer(ds)


def test_variant_and_resource_dtypes_are_tfs():
    assert (tf.variant.name, tf.variant.as_datatype_enum) == ("variant", 21)
    assert (tf.resource.name, tf.resource.as_datatype_enum) == ("resource", 20)
    assert tf.as_dtype(21) is tf.variant and tf.as_dtype("resource") is tf.resource
    assert not tf.variant.is_numpy_compatible and tf.float32.is_numpy_compatible
    assert tf.as_dtype(np.dtype(object)) is tf.string       # objects are still strings
    ds = tf.data.Dataset.range(3)
    assert ds._variant_tensor.dtype == tf.variant and ds._variant_tensor.shape.ndims == 0
    it = ds.make_initializable_iterator()
    assert it._iterator_resource.dtype == tf.resource
