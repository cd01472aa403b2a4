"""tf.data pipelines as GraphDefs and meta graphs, within tfteach: a pipeline written by
`as_graph_def()` (its functions in the library) and imported again gives the same
elements; what cannot be written is refused by name; the SAVERS collection round-trips.
(tests/test_data_graph_io_reference.py does the same across TensorFlow.)
"""
import os

import numpy as np
import pytest

import tfteach as tf
from tfteach.framework.graph_def import NotExportableError


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _drain(sess, fetches, limit=200):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(fetches))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no end within %d elements" % limit)


def _as_lists(elements):
    return [[np.asarray(c).tolist() for c in (e if isinstance(e, (list, tuple)) else [e])]
            for e in elements]


def _round_trip(build):
    """The elements of build()'s initializable iterator in tfteach, then of the same
    graph written as a GraphDef and imported into a fresh graph."""
    nxt, init = build()
    flat = nxt if isinstance(nxt, (list, tuple)) else [nxt]
    names = [t.name for t in flat]
    with tf.Session() as sess:
        if init is not None:
            sess.run(init)
        ours = _drain(sess, flat)
    graph_def = tf.get_default_graph().as_graph_def()
    data = graph_def.SerializeToString()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(tf.GraphDef.FromString(data), name="")
        with tf.Session(graph=g) as sess:
            if init is not None:
                sess.run(init.name)
            again = _drain(sess, names)
    return _as_lists(ours), _as_lists(again), graph_def


X = np.arange(12, dtype=np.float32).reshape(6, 2)


def _initializable(dataset):
    it = dataset.make_initializable_iterator()
    return it.get_next(), it.initializer


PIPELINES = {
    "map_capture_filter_batch_repeat": lambda: _initializable(
        tf.data.Dataset.from_tensor_slices((X, np.arange(6)))
        .map(lambda x, i: (x * tf.constant(2.0), i + 1))
        .filter(lambda x, i: i % 2 > 0).batch(2).repeat(2)),
    "zip_take_skip_concatenate": lambda: _initializable(
        tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(10, 20)))
        .skip(1).take(3).concatenate(
            tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(2))))),
    "flat_map_interleave": lambda: _initializable(
        tf.data.Dataset.range(1, 4).flat_map(lambda n: tf.data.Dataset.range(n))
        .interleave(lambda m: tf.data.Dataset.from_tensors(m).repeat(2), cycle_length=2)),
    "padded_batch_unbatch_cache_prefetch": lambda: _initializable(
        tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
        .padded_batch(2, [None]).cache().prefetch(1).unbatch()),
    "map_and_batch": lambda: _initializable(
        tf.data.Dataset.range(7).apply(tf.data.experimental.map_and_batch(
            lambda x: x * tf.constant(3, tf.int64), 3))),
    "one_shot": lambda: (tf.data.Dataset.from_tensors(np.float32([1, 2]))
                         .repeat(3).map(lambda v: v + 1.0)
                         .make_one_shot_iterator().get_next(), None),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_a_pipeline_written_and_imported_gives_the_same_elements(name):
    ours, again, _ = _round_trip(PIPELINES[name])
    assert len(ours) > 0
    assert again == ours


def test_a_seeded_shuffle_imported_gives_the_same_orders():
    ours, again, graph_def = _round_trip(lambda: _initializable(
        tf.data.Dataset.range(10).shuffle(10, seed=4).repeat(2)))
    assert again == ours
    assert sorted(e[0] for e in ours[:10]) == list(range(10))
    shuffle = [n for n in graph_def.node if n.op == "ShuffleDataset"][0]
    assert shuffle.attr["reshuffle_each_iteration"].b is True


def test_the_graph_def_has_tf_1_15_nodes_and_functions():
    c = tf.constant(3.0, name="scale")
    ds = tf.data.Dataset.from_tensor_slices((X, np.arange(6))).map(lambda x, i: (x * c, i))
    ds.apply(tf.data.experimental.map_and_batch(lambda x, i: x, 2))
    ds.make_one_shot_iterator()
    graph_def = tf.get_default_graph().as_graph_def()
    nodes = {n.name: n for n in graph_def.node}
    slices = nodes["TensorSliceDataset"]
    assert "output_types" not in slices.attr and len(slices.attr["Toutput_types"].list.type) == 2
    mapped = nodes["MapDataset"]
    assert list(mapped.input) == ["TensorSliceDataset", "scale"]
    assert mapped.attr["Targuments"].list.type == [tf.float32.as_datatype_enum]
    functions = {f.signature.name: f for f in graph_def.library.function}
    body = functions[mapped.attr["f"].func.name]
    assert [a.name for a in body.signature.input_arg] == ["args_0", "args_1", "captured_0"]
    assert dict(body.ret) == {"output_0": "mul:z:0", "output_1": "args_1"}
    batched = nodes["MapAndBatchDataset"]
    assert batched.input[0] == "MapDataset" and batched.input[1:] == [
        "batch_size", "num_parallel_calls", "drop_remainder"]
    factory = functions[nodes["OneShotIterator"].attr["dataset_factory"].func.name]
    assert factory.signature.is_stateful and not factory.signature.input_arg
    assert factory.ret["dataset"] == "MapDataset:handle:0"


def test_what_a_graph_def_cannot_hold_is_refused_by_name():
    tf.data.Dataset.from_generator(lambda: iter([1]), tf.int64).make_one_shot_iterator()
    with pytest.raises(NotExportableError, match="GeneratorDataset.*Python generator"):
        tf.get_default_graph().as_graph_def()
    tf.reset_default_graph()
    sparse = tf.SparseTensor([[0]], [1.0], [3])
    tf.data.Dataset.from_tensors(sparse).map(lambda s: s)
    with pytest.raises(NotExportableError, match="SparseTensor components"):
        tf.get_default_graph().as_graph_def()
    tf.reset_default_graph()
    tf.data.Dataset.from_tensors(tf.SparseTensor([[0]], [1.0], [3])).repeat(2)
    with pytest.raises(NotExportableError, match="'TensorDataset'.*SparseTensor"):
        tf.get_default_graph().as_graph_def()


def test_a_function_missing_from_the_library_is_named():
    tf.data.Dataset.range(3).map(lambda x: x + 1)
    graph_def = tf.get_default_graph().as_graph_def()
    del graph_def.library.function[:]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="names function 'Dataset_map_lambda_.*' which|"
                                             "names function 'Dataset_map_lambda_.*', which"):
            tf.import_graph_def(graph_def, name="")


def test_tensorboards_view_still_draws_the_pipeline():
    from tfteach.framework.graph_def import graph_to_graph_def
    tf.data.Dataset.from_generator(lambda: iter([1]), tf.int64).map(lambda x: x)
    shown = graph_to_graph_def(tf.get_default_graph(), for_display=True)
    assert [n.op for n in shown.node if n.op.endswith("Dataset")] == [
        "GeneratorDataset", "MapDataset"]


def test_saver_writes_the_meta_beside_a_pipeline_and_the_savers_collection(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(np.float32([1, 2, 3])).repeat()
    it = ds.make_initializable_iterator()
    w = tf.Variable(0.0, name="w")
    train = tf.assign_add(w, it.get_next(), name="train")
    saver = tf.train.Saver()
    tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), it.initializer])
        sess.run(train)
        prefix = saver.save(sess, str(tmp_path / "model"), global_step=1)
    assert os.path.exists(prefix + ".meta")
    tf.reset_default_graph()
    restored = tf.train.import_meta_graph(prefix + ".meta")
    (from_collection,) = tf.get_collection(tf.GraphKeys.SAVERS)
    assert from_collection.saver_def == restored.saver_def
    with tf.Session() as sess:
        from_collection.restore(sess, prefix)
        sess.run("MakeIterator")
        assert [sess.run("train:0") for _ in range(4)] == [2.0, 4.0, 7.0, 8.0]


def test_an_estimator_fed_by_a_dataset_writes_meta_graphs(tmp_path):
    xs = np.float32([[1, 2], [3, 1], [0, 1], [2, 2]])
    ys = xs @ np.float32([[0.5], [-1.0]])

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": xs}, ys)).batch(2).repeat()

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "model"))
    est.train(input_fn, steps=3)
    files = set(os.listdir(est.model_dir))
    assert {"model.ckpt-0.meta", "model.ckpt-3.meta"} <= files
    graph_def = tf.GraphDef()
    from google.protobuf import text_format
    with open(os.path.join(est.model_dir, "graph.pbtxt")) as f:
        text_format.Parse(f.read(), graph_def)
    assert "TensorSliceDataset" in [n.op for n in graph_def.node]   # TF's GraphDef
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(os.path.join(est.model_dir, "model.ckpt-3.meta"))
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(est.model_dir, "model.ckpt-3"))
            np.testing.assert_array_equal(sess.run("w:0"),
                                          est.get_variable_value("w"))
