"""An Estimator's model_dir is readable by TensorFlow: its `checkpoint` state, the
variables of its checkpoints (tf.train.list_variables / load_variable) and its event
files (training and eval summaries). Skipped without TensorFlow."""
import os

import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1

pytestmark = pytest.mark.reference


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("dnn"))
    tfteach.reset_default_graph()
    fc = tfteach.feature_column
    columns = [fc.numeric_column("x", shape=(2,)),
               fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2)]
    rng = np.random.RandomState(0)
    x = rng.randn(30, 2).astype(np.float32)
    ids = rng.randint(0, 4, 30)
    est = tfteach.estimator.DNNClassifier([3], columns, model_dir=directory,
                                          config=tfteach.estimator.RunConfig(
                                              save_summary_steps=2))
    est.train(tfteach.estimator.inputs.numpy_input_fn(
        {"x": x, "i": ids}, (x[:, 0] > 0).astype(np.int64), batch_size=10,
        num_epochs=None, shuffle=False), steps=6)
    est.evaluate(tfteach.estimator.inputs.numpy_input_fn(
        {"x": x, "i": ids}, (x[:, 0] > 0).astype(np.int64), batch_size=10, shuffle=False))
    return directory, est


def test_tensorflow_reads_the_checkpoints(model_dir):
    directory, est = model_dir
    tf = tensorflow_v1()
    assert tf.train.latest_checkpoint(directory) == os.path.join(directory, "model.ckpt-6")
    tf_variables = dict(tf.train.list_variables(directory))
    ours = dict(tfteach.train.list_variables(directory))
    assert tf_variables == ours
    assert "dnn/input_from_feature_columns/input_layer/i_embedding/embedding_weights" in \
        tf_variables
    assert tf_variables["dnn/hiddenlayer_0/kernel"] == [4, 3]
    for name in tf_variables:
        np.testing.assert_array_equal(tf.train.load_variable(directory, name),
                                      est.get_variable_value(name))


def test_tensorflow_reads_the_event_files(model_dir):
    directory, est = model_dir
    tf = tensorflow_v1()

    def scalars(folder):
        found = {}
        for name in os.listdir(folder):
            if name.startswith("events.out.tfevents."):
                for event in tf.train.summary_iterator(os.path.join(folder, name)):
                    for value in event.summary.value:
                        found.setdefault(value.tag, []).append(event.step)
        return found
    training = scalars(directory)
    assert training["loss"] == [1, 3, 5]
    # Written inside the `dnn` name scope, TF's tag repeats it.
    assert training["dnn/dnn/hiddenlayer_0/fraction_of_zero_values"] == [1, 3, 5]
    evaluation = scalars(os.path.join(directory, "eval"))
    assert evaluation["accuracy"] == [6] and evaluation["loss"] == [6]
