"""tf.feature_column's input_layer and linear_model give TensorFlow's numbers and variable
names (tf.compat.v1.feature_column, graph mode) for the same features and weights; the
column constructors' errors are TensorFlow's. FtrlOptimizer (the linear Estimators'
default) updates as TensorFlow's. Skipped without TensorFlow."""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import tf1_behaviour

pytestmark = pytest.mark.reference

EMBEDDING = np.arange(15, dtype=np.float32).reshape(5, 3) / 10
FEATURES = {"x": np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 0.5]], np.float32),
            "a": np.array([0.5, 3.0, 1.0], np.float32),
            "c": np.array([["b", "a"], ["c", ""], ["", ""]]),
            "i": np.array([[1, 4], [3, 3], [0, -1]], np.int64),
            "n": np.array([7, 5, 2], np.int64)}


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    with tf1_behaviour() as v1:
        yield v1


def columns(tf, fc):
    vocabulary = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c", "d"])
    identity = fc.categorical_column_with_identity("i", 5)
    return [fc.numeric_column("x", shape=(2,)),
            fc.bucketized_column(fc.numeric_column("a"), [0.0, 1.0, 2.0]),
            fc.indicator_column(vocabulary),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                "n", [5, 7, 9], default_value=2)),
            fc.embedding_column(identity, 3, initializer=tf.constant_initializer(EMBEDDING)),
            fc.embedding_column(vocabulary, 3, combiner="sqrtn",
                                initializer=tf.constant_initializer(EMBEDDING[:4] + 1)),
            fc.embedding_column(fc.categorical_column_with_identity("n", 10, default_value=0),
                                2, combiner="sum",
                                initializer=tf.constant_initializer(np.arange(20.0) / 9))]


def run(tf, fc, build):
    graph = tf.Graph()
    with graph.as_default():
        out = build(tf, fc, {k: tf.constant(v) for k, v in FEATURES.items()})
        names = sorted((v.op.name, v.shape.as_list()) for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            if hasattr(tf, "tables_initializer"):
                sess.run(tf.tables_initializer())
            for v in tf.global_variables():
                if v.op.name.endswith("/weights") or v.op.name.endswith("bias_weights"):
                    shape = v.shape.as_list()
                    sess.run(v.assign(np.arange(np.prod(shape), dtype=np.float32)
                                      .reshape(shape) / 7 - 1))
            return sess.run(out), names


def both(v1, build):
    return run(v1, v1.feature_column, build), run(tfteach, tfteach.feature_column, build)


def test_input_layer_as_tensorflow(tensorflow_1_15_variables):
    def build(tf, fc, features):
        return fc.input_layer(features, columns(tf, fc))
    (expected, tf_names), (got, names) = both(tensorflow_1_15_variables, build)
    assert names == tf_names
    assert got.shape == expected.shape == (3, 2 + 4 + 4 + 3 + 3 + 3 + 2)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_linear_model_as_tensorflow(tensorflow_1_15_variables):
    def build(tf, fc, features):
        cols = columns(tf, fc)
        return fc.linear_model(features, cols[:4] + [cols[4].categorical_column], units=2)
    (expected, tf_names), (got, names) = both(tensorflow_1_15_variables, build)
    assert names == tf_names
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def message_of(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("call", [
    lambda fc: fc.numeric_column("x", shape=(0,)),
    lambda fc: fc.numeric_column(3),
    lambda fc: fc.bucketized_column(fc.numeric_column("a"), [2.0, 1.0]),
    lambda fc: fc.bucketized_column(fc.categorical_column_with_identity("a", 3), [1.0]),
    lambda fc: fc.categorical_column_with_vocabulary_list("c", ["a", "a"]),
    lambda fc: fc.categorical_column_with_identity("i", 3, default_value=3),
    lambda fc: fc.input_layer({"x": [[1.0]]}, []),
])
def test_constructor_errors_as_tensorflow(tensorflow_1_15_variables, call):
    v1 = tensorflow_1_15_variables
    tf_class, tf_text = message_of(lambda: call(v1.feature_column))
    got_class, got_text = message_of(lambda: call(tfteach.feature_column))
    assert got_class.__name__ == tf_class.__name__
    assert got_text == tf_text


def test_input_layer_refuses_a_categorical_column(tensorflow_1_15_variables):
    v1 = tensorflow_1_15_variables

    def call(tf, fc):
        with tf.Graph().as_default():
            fc.input_layer({"c": tf.constant([["a"]])},
                           [fc.categorical_column_with_vocabulary_list("c", ["a"])])
    tf_class, tf_text = message_of(lambda: call(v1, v1.feature_column))
    got_class, got_text = message_of(lambda: call(tfteach, tfteach.feature_column))
    assert got_class is tf_class is ValueError
    assert got_text.split(" Given: ")[0] == tf_text.split(" Given: ")[0]


@pytest.mark.parametrize("options", [
    {}, {"l1_regularization_strength": 0.3, "l2_regularization_strength": 0.2,
         "learning_rate_power": -0.7, "l2_shrinkage_regularization_strength": 0.1,
         "initial_accumulator_value": 0.5}])
def test_ftrl_updates_as_tensorflow(tensorflow_1_15_variables, options):
    x = np.array([[1, 2, 3], [0.5, -1, 2]], np.float32)

    def train(tf):
        with tf.Graph().as_default():
            w = tf.Variable(np.array([[0.5], [-1.0], [0.2]], np.float32), name="w")
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
            step = tf.train.FtrlOptimizer(0.1, **options).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(4):
                    sess.run(step)
                return {v.op.name: sess.run(v) for v in tf.global_variables()}
    expected, got = train(tensorflow_1_15_variables), train(tfteach)
    assert sorted(got) == sorted(expected) == ["w", "w/Ftrl", "w/Ftrl_1"]
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6)


def test_sparse_features_as_tensorflow(tensorflow_1_15_variables):
    # Variable-length values (a VarLenFeature's SparseTensor): row 0 has two, row 1 none.
    def build(tf, fc, _):
        features = {"c": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ["b", "d", "a"], [3, 2]),
                    "i": tf.SparseTensor([[0, 0], [1, 0], [1, 1]],
                                         tf.constant([4, 0, 2], tf.int64), [3, 2])}
        vocabulary = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c", "d"])
        identity = fc.categorical_column_with_identity("i", 5)
        return fc.input_layer(features, [
            fc.indicator_column(vocabulary), fc.indicator_column(identity),
            fc.embedding_column(identity, 3, initializer=tf.constant_initializer(EMBEDDING))])
    (expected, _), (got, _) = both(tensorflow_1_15_variables, build)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
