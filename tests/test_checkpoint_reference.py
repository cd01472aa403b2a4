"""Checkpoints move both ways between tfteach and TensorFlow (tf.compat.v1, graph mode,
ref variables: TF 1.15's Saver).

- The bundle tfteach writes is byte-identical to TensorFlow's SaveV2 output.
- For the notes' models (linear regression, the MLP with moving averages, LeNet-5, an
  LSTM) a checkpoint saved by one restores in the other: every variable (optimizer
  slots included) comes back with TensorFlow's values, and the restored model computes
  what the saving one computed.
- The `checkpoint` state file and the errors are TensorFlow's.
Skipped without TensorFlow.
"""
import os

import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    # ref variables and 1.15's cond (initialized_value) in TensorFlow, for this module
    with tf1_behaviour():
        yield


# -- the models, written once for both libraries ------------------------------------------
def linear_regression(tf):
    x = tf.placeholder(tf.float32, [None, 1], name="x")
    y_ = tf.placeholder(tf.float32, [None, 1], name="y_")
    w = tf.Variable(tf.random_normal([1, 1], seed=1), name="weight")
    b = tf.Variable(tf.zeros([1]), name="bias")
    y = tf.matmul(x, w) + b
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(y - y_))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    data = np.linspace(-1, 1, 8, dtype=np.float32).reshape(-1, 1)
    return y, train, {x: data, y_: 3 * data + 0.5}, {x: data}


def mlp_with_moving_averages(tf):
    x = tf.placeholder(tf.float32, [None, 12], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, 4], name="y-input")
    w1 = tf.Variable(tf.truncated_normal([12, 10], stddev=0.1, seed=2), name="w1")
    b1 = tf.Variable(tf.constant(0.1, shape=[10]), name="b1")
    w2 = tf.Variable(tf.truncated_normal([10, 4], stddev=0.1, seed=3), name="w2")
    b2 = tf.Variable(tf.constant(0.1, shape=[4]), name="b2")
    step = tf.Variable(0, trainable=False, name="global_step")
    ema = tf.train.ExponentialMovingAverage(0.9, step)
    ema_op = ema.apply(tf.trainable_variables())
    y = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
    opt = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    with tf.control_dependencies([opt, ema_op]):
        train = tf.no_op(name="train")
    rng = np.random.RandomState(0)
    data = rng.rand(16, 12).astype(np.float32)
    labels = np.eye(4, dtype=np.float32)[rng.randint(0, 4, 16)]
    return y, train, {x: data, y_: labels}, {x: data}


def lenet5(tf):
    x = tf.placeholder(tf.float32, [None, 12, 12, 1], name="x-input")
    y_ = tf.placeholder(tf.float32, [None, 3], name="y-input")
    init = tf.truncated_normal_initializer(stddev=0.1, seed=4)
    with tf.variable_scope("layer1-conv1"):
        k1 = tf.get_variable("weight", [3, 3, 1, 4], initializer=init)
        c1 = tf.get_variable("bias", [4], initializer=tf.constant_initializer(0.0))
        r1 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k1, [1, 1, 1, 1], "SAME"), c1))
    with tf.name_scope("layer2-pool1"):
        p1 = tf.nn.max_pool(r1, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with tf.variable_scope("layer3-conv2"):
        k2 = tf.get_variable("weight", [3, 3, 4, 6], initializer=init)
        c2 = tf.get_variable("bias", [6], initializer=tf.constant_initializer(0.0))
        r2 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(p1, k2, [1, 1, 1, 1], "VALID"), c2))
    p2 = tf.nn.max_pool(r2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    flat = tf.reshape(p2, [-1, 2 * 2 * 6])
    with tf.variable_scope("layer5-fc1"):
        fw = tf.get_variable("weight", [24, 3], initializer=init)
        fb = tf.get_variable("bias", [3], initializer=tf.constant_initializer(0.1))
        y = tf.matmul(flat, fw) + fb
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    rng = np.random.RandomState(1)
    data = rng.rand(5, 12, 12, 1).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 5)]
    return y, train, {x: data, y_: labels}, {x: data}


def _tensorflows_basic_lstm(tf, x, units):
    """TF 1.15's BasicLSTMCell + dynamic_rnn, written out (TF 2.21's tf.compat.v1 no
    longer has the cell without legacy Keras): its variables `rnn/basic_lstm_cell/
    kernel` [input+units, 4*units] and `bias`, gates i, j, f, o, forget_bias 1."""
    with tf.variable_scope("rnn/basic_lstm_cell"):
        kernel = tf.get_variable("kernel", [3 + units, 4 * units])
        bias = tf.get_variable("bias", [4 * units], initializer=tf.zeros_initializer())
    c = h = tf.zeros([tf.shape(x)[0], units])
    outputs = []
    for t in range(5):
        gates = tf.matmul(tf.concat([x[:, t, :], h], 1), kernel) + bias
        i, j, f, o = tf.split(gates, 4, axis=1)
        c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        h = tf.tanh(c) * tf.sigmoid(o)
        outputs.append(h)
    return tf.stack(outputs, axis=1)


def lstm(tf):
    x = tf.placeholder(tf.float32, [None, 5, 3], name="x")
    y_ = tf.placeholder(tf.float32, [None, 1], name="y")
    if tf is tfteach:
        cell = tf.nn.rnn_cell.BasicLSTMCell(6)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    else:
        outputs = _tensorflows_basic_lstm(tf, x, 6)
    w = tf.Variable(tf.truncated_normal([6, 1], stddev=0.3, seed=5), name="out_w")
    y = tf.matmul(outputs[:, -1, :], w)
    loss = tf.reduce_mean(tf.square(y - y_))
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    rng = np.random.RandomState(2)
    data = rng.rand(4, 5, 3).astype(np.float32)
    return y, train, {x: data, y_: data.sum(axis=(1, 2))[:, None]}, {x: data}


MODELS = [linear_regression, mlp_with_moving_averages, lenet5, lstm]


def train_and_save(tf, model, directory, steps=3):
    """Builds `model` with `tf`, trains a few steps, saves; (variables, output, path)."""
    graph = tf.Graph()
    with graph.as_default():
        if tf is tfteach:
            tf.set_random_seed(0)
        y, train, train_feed, eval_feed = model(tf)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train, train_feed)
            path = saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=steps,
                              write_meta_graph=False)
            values = {v.op.name: sess.run(v) for v in tf.global_variables()}
            return values, sess.run(y, eval_feed), path


def restore_and_run(tf, model, path):
    graph = tf.Graph()
    with graph.as_default():
        y, _, _, eval_feed = model(tf)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, path)
            values = {v.op.name: sess.run(v) for v in tf.global_variables()}
            return values, sess.run(y, eval_feed)


def assert_same_values(expected, actual):
    assert sorted(expected) == sorted(actual)
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_tensorflow_saves_tfteach_restores(tmp_path, model):
    values, output, path = train_and_save(tensorflow_v1(), model, str(tmp_path))
    restored, restored_output = restore_and_run(tfteach, model, path)
    assert_same_values(values, restored)         # optimizer slots, EMA shadows included
    np.testing.assert_allclose(restored_output, output, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_tfteach_saves_tensorflow_restores(tmp_path, model):
    values, output, path = train_and_save(tfteach, model, str(tmp_path))
    restored, restored_output = restore_and_run(tensorflow_v1(), model, path)
    assert_same_values(values, restored)
    np.testing.assert_allclose(restored_output, output, rtol=1e-5, atol=1e-6)


def test_moving_average_shadows_saved_by_tensorflow_restore_into_tfteach(tmp_path):
    tf1 = tensorflow_v1()
    values, _, path = train_and_save(tf1, mlp_with_moving_averages, str(tmp_path), steps=5)
    graph = tfteach.Graph()
    with graph.as_default():
        # The notes' evaluation program: the same variables, no training ops, and the
        # averages restored into them through variables_to_restore().
        live = {"w1": tfteach.Variable(tfteach.zeros([12, 10]), name="w1"),
                "b1": tfteach.Variable(tfteach.zeros([10]), name="b1"),
                "w2": tfteach.Variable(tfteach.zeros([10, 4]), name="w2"),
                "b2": tfteach.Variable(tfteach.zeros([4]), name="b2")}
        ema = tfteach.train.ExponentialMovingAverage(0.9)
        to_restore = ema.variables_to_restore()
        assert to_restore == {n + "/ExponentialMovingAverage": v for n, v in live.items()}
        with tfteach.Session(graph=graph) as sess:
            tfteach.train.Saver(to_restore).restore(sess, path)
            for name, variable in live.items():
                np.testing.assert_array_equal(sess.run(variable),
                                              values[name + "/ExponentialMovingAverage"])
    # the shadows differ from the trained weights after 5 steps
    assert not np.array_equal(values["w1"], values["w1/ExponentialMovingAverage"])


def test_the_bundle_is_byte_identical_to_tensorflows(tmp_path):
    tf1 = tensorflow_v1()
    results = []
    for tf, name in ((tf1, "tf"), (tfteach, "ours")):
        graph = tf.Graph()
        with graph.as_default():
            with tf.variable_scope("layer1"):
                tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="weights")
                tf.Variable(np.array([1.5, -2.0], np.float64), name="bias")
            tf.Variable(7, dtype=tf.int64, name="global_step")
            tf.Variable(True, name="flag")
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                path = tf.train.Saver().save(sess, str(tmp_path / name / "model.ckpt"),
                                             global_step=7, write_meta_graph=False)
        with open(path + ".index", "rb") as f:
            index = f.read()
        with open(path + ".data-00000-of-00001", "rb") as f:
            results.append((index, f.read()))
        with open(str(tmp_path / name / "checkpoint")) as f:
            results.append(f.read().replace(str(tmp_path / name), "DIR"))
    assert results[0] == results[2]          # .index and .data, byte for byte
    assert results[1] == results[3]          # the `checkpoint` state file


def test_readers_agree_on_a_tensorflow_checkpoint(tmp_path):
    tf1 = tensorflow_v1()
    _, _, path = train_and_save(tf1, lenet5, str(tmp_path))
    ours = tfteach.train.NewCheckpointReader(path)
    theirs = tf1.train.NewCheckpointReader(path)
    assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
    assert {k: v.name for k, v in ours.get_variable_to_dtype_map().items()} == {
        k: v.name for k, v in theirs.get_variable_to_dtype_map().items()}
    assert tfteach.train.list_variables(str(tmp_path)) == tf1.train.list_variables(
        str(tmp_path))
    assert tfteach.train.latest_checkpoint(str(tmp_path)) == tf1.train.latest_checkpoint(
        str(tmp_path))


def test_restore_errors_match_tensorflows(tmp_path):
    tf1 = tensorflow_v1()
    _, _, path = train_and_save(tfteach, linear_regression, str(tmp_path))
    errors = []
    for tf in (tf1, tfteach):
        graph = tf.Graph()
        with graph.as_default():
            tf.Variable(0.0, name="not_in_checkpoint")
            saver = tf.train.Saver()
            with tf.Session(graph=graph) as sess:
                with pytest.raises(tf.errors.NotFoundError) as info:
                    saver.restore(sess, path)
                errors.append(str(info.value))
                with pytest.raises(ValueError) as info:
                    saver.restore(sess, str(tmp_path / "nothing"))
                errors.append(str(info.value))
    for theirs, ours in zip(errors[:2], errors[2:]):
        assert ours.split("\n")[0] == theirs.split("\n")[0]
    assert "Key not_in_checkpoint not found in checkpoint" in errors[0]
    assert "Key not_in_checkpoint not found in checkpoint" in errors[2]


def _as_in_1_15(message):
    # TF 2's Status prints its code as FAILED_PRECONDITION; 1.15's as "Failed precondition".
    return message.replace("FAILED_PRECONDITION: ", "Failed precondition: ").replace(
        "DATA_LOSS: ", "Data loss: ")


def _errors_for_paths(tf, paths):
    """[(error class, the line naming the file)] of `restore` and of NewCheckpointReader
    for each path."""
    found = []
    graph = tf.Graph()
    with graph.as_default():
        tf.Variable([1.0, 2.0], name="w")
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            for path in paths:
                for call in (lambda: saver.restore(sess, path),
                             lambda: tf.train.NewCheckpointReader(path)):
                    with pytest.raises(tf.errors.OpError) as info:
                        call()
                    lines = [line for line in str(info.value).split("\n")
                             if "table file" in line or "Tensor name" in line]
                    found.append((type(info.value).__name__, _as_in_1_15(lines[0])))
    return found


def test_a_path_that_is_no_checkpoint_fails_as_in_tensorflow(tmp_path):
    # The checkpoint's directory, its .meta or .data file, or the state file instead of
    # the prefix: TF reads them as V1 checkpoints, which fails with a DataLossError.
    graph = tfteach.Graph()
    with graph.as_default():
        w = tfteach.Variable([1.0, 2.0], name="w")
        saver = tfteach.train.Saver()
        with tfteach.Session(graph=graph) as sess:
            sess.run(w.initializer)
            saver.save(sess, str(tmp_path / "ckpt" / "m"), global_step=3)
    directory = str(tmp_path / "ckpt")
    paths = [directory + "/" + name for name in (
        "", "m-3.meta", "m-3.data-00000-of-00001", "checkpoint")] + [directory]
    ours = _errors_for_paths(tfteach, paths)
    assert ours[0] == ("DataLossError", "Unable to open table file %s/: Failed precondition: "
                       "%s; Is a directory: perhaps your file is in a different file format "
                       "and you need to use a different restore operator?" % (directory,
                                                                              directory))
    assert ours[1] == ours[0]
    assert ours[2][1].endswith("m-3.meta: Data loss: not an sstable (bad magic number): "
                               "perhaps your file is in a different file format and you "
                               "need to use a different restore operator?")
    assert ours == _errors_for_paths(tensorflow_v1(), paths)


def test_restoring_from_the_index_file_finds_no_tensor_as_in_tensorflow(tmp_path):
    # "m-3.index" is a table: TF's V1 reader opens it and finds no tensor "w" in it.
    graph = tfteach.Graph()
    with graph.as_default():
        w = tfteach.Variable([1.0, 2.0], name="w")
        saver = tfteach.train.Saver()
        with tfteach.Session(graph=graph) as sess:
            sess.run(w.initializer)
            path = saver.save(sess, str(tmp_path / "m"), global_step=3) + ".index"
    errors = []
    for tf in (tensorflow_v1(), tfteach):
        graph = tf.Graph()
        with graph.as_default():
            tf.Variable([1.0, 2.0], name="w")
            saver = tf.train.Saver()
            with tf.Session(graph=graph) as sess:
                with pytest.raises(tf.errors.NotFoundError) as info:
                    saver.restore(sess, path)
        errors.append([line for line in str(info.value).split("\n")
                       if line.startswith(("Restoring", "Tensor name"))])
    assert errors[1] == errors[0]
    assert errors[1][1] == 'Tensor name "w" not found in checkpoint files ' + path


def test_a_damaged_index_gives_tensorflows_words(tmp_path):
    _, _, path = train_and_save(tfteach, linear_regression, str(tmp_path))
    with open(path + ".index", "r+b") as f:
        f.truncate(os.path.getsize(path + ".index") - 3)
    with pytest.raises(tensorflow_v1().errors.OpError) as theirs:
        tensorflow_v1().train.NewCheckpointReader(path)
    # TF 1.15 raised the status's own class (TF 2.21's binding raises a plain OpError).
    with pytest.raises(tfteach.errors.DataLossError) as ours:
        tfteach.train.NewCheckpointReader(path)
    assert str(ours.value) == str(theirs.value) == "not an sstable (bad magic number)"


def _restore_error_line(tf, path, variable):
    """The line of the error `restore` raises that holds `variable`'s name."""
    graph = tf.Graph()
    with graph.as_default():
        variable(tf)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            with pytest.raises(tf.errors.OpError) as info:
                saver.restore(sess, path)
    return type(info.value).__name__, [line for line in str(info.value).split("\n")
                                       if "tensor_name" in line]


def test_a_dtype_mismatch_names_the_dtypes_as_tensorflow_does(tmp_path):
    # DataTypeString's names: "float" and "double", not Python's float32 and float64.
    _, _, path = train_and_save(tfteach, linear_regression, str(tmp_path))

    def variable(tf):
        tf.Variable(tf.zeros([1, 1], tf.float64), name="weight")

    ours = _restore_error_line(tfteach, path, variable)
    assert ours == ("InvalidArgumentError", [
        "tensor_name = weight; expected dtype double does not equal original dtype float"])
    assert ours == _restore_error_line(tensorflow_v1(), path, variable)


@pytest.mark.parametrize("model", MODELS[:3], ids=lambda m: m.__name__)
def test_meta_graphs_and_checkpoints_move_both_ways(tmp_path, model):
    # The notes' restore without Python code: import_meta_graph + restore. (The LSTM is
    # left out: tfteach's dynamic_rnn is a one-node while loop with no TF NodeDef.)
    pytest.importorskip("tfteach.framework.meta_graph")
    tf1 = tensorflow_v1()
    for saving, loading in ((tfteach, tf1), (tf1, tfteach)):
        graph = saving.Graph()
        with graph.as_default():
            y, train, train_feed, eval_feed = model(saving)
            saving.add_to_collection("y", y)
            with saving.Session(graph=graph) as sess:
                sess.run(saving.global_variables_initializer())
                sess.run(train, train_feed)
                path = saving.train.Saver().save(
                    sess, str(tmp_path / saving.__name__ / "m"), global_step=1)
                expected = sess.run(y, eval_feed)
                feed = {t.name: value for t, value in eval_feed.items()}
        graph = loading.Graph()
        with graph.as_default(), loading.Session(graph=graph) as sess:
            loading.train.import_meta_graph(path + ".meta").restore(sess, path)
            got = sess.run(loading.get_collection("y")[0], feed)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_init_from_checkpoint_reads_what_tensorflow_reads(tmp_path):
    tf1 = tensorflow_v1()
    _, _, path = train_and_save(tf1, lenet5, str(tmp_path))
    results = []
    for tf in (tf1, tfteach):
        graph = tf.Graph()
        with graph.as_default():
            with tf.variable_scope("pretrained"):
                for layer, shape in (("layer1-conv1", [3, 3, 1, 4]),
                                     ("layer3-conv2", [3, 3, 4, 6])):
                    with tf.variable_scope(layer):
                        tf.get_variable("weight", shape)
                        tf.get_variable("bias", shape[-1:])
            head = tf.Variable(tf.zeros([24, 3]), name="head")
            tf.train.init_from_checkpoint(path, {"/": "pretrained/",
                                                 "layer5-fc1/weight": head})
            with tf.Session(graph=graph) as sess:
                sess.run(tf.global_variables_initializer())
                results.append({v.op.name: sess.run(v) for v in tf.global_variables()})
    assert_same_values(results[0], results[1])


def test_sharded_savers_interoperate(tmp_path):
    # TF's sharded save merges per-device bundles into one index; on one device the
    # files are the single-shard ones tfteach writes for sharded=True too.
    tf1 = tensorflow_v1()
    for saving, loading, name in ((tf1, tfteach, "tf"), (tfteach, tf1, "tfteach")):
        os.makedirs(str(tmp_path / name))       # TF's sharded save needs the directory
        graph = saving.Graph()
        with graph.as_default():
            saving.Variable([[1.5, 2.5]], name="w")
            saving.Variable(4, dtype=saving.int64, name="step")
            with saving.Session(graph=graph) as sess:
                sess.run(saving.global_variables_initializer())
                path = saving.train.Saver(sharded=True).save(
                    sess, str(tmp_path / name / "m"), write_meta_graph=False)
        assert os.path.exists(path + ".data-00000-of-00001")
        graph = loading.Graph()
        with graph.as_default():
            w = loading.Variable([[0.0, 0.0]], name="w")
            step = loading.Variable(0, dtype=loading.int64, name="step")
            with loading.Session(graph=graph) as sess:
                loading.train.Saver(sharded=True).restore(sess, path)
                np.testing.assert_array_equal(sess.run(w), [[1.5, 2.5]])
                assert sess.run(step) == 4


def test_one_variable_under_two_names_is_refused_as_in_tensorflow():
    messages = []
    for tf in (tensorflow_v1(), tfteach):
        with tf.Graph().as_default():
            w = tf.Variable([1.0, 2.0], name="w")
            with pytest.raises(ValueError) as info:
                tf.train.Saver({"old_w": w, "w": w})
            messages.append(str(info.value))
    assert messages[1] == messages[0] == (
        "The same saveable will be restored with two names: w")


def test_the_global_step_collection_imports_as_a_variable(tmp_path):
    # TF registers VariableDef proto functions for "global_step" too: after
    # import_meta_graph, tf.train.get_global_step() is the variable, for both files.
    tf1 = tensorflow_v1()
    found = []
    for saving in (tf1, tfteach):
        graph = saving.Graph()
        with graph.as_default():
            y, train, train_feed, _ = linear_regression(saving)
            with saving.Session(graph=graph) as sess:
                sess.run(saving.global_variables_initializer())
                path = saving.train.Saver().save(sess, str(tmp_path / saving.__name__ / "m"))
        for loading in (tf1, tfteach):
            with loading.Graph().as_default():
                loading.train.import_meta_graph(path + ".meta")
                step = loading.train.get_global_step()
                found.append((isinstance(step, loading.Variable), step.name, str(step.dtype)))
    assert found == 4 * [(True, "global_step:0", "<dtype: 'int64_ref'>")]
