"""tf.contrib.layers.optimize_loss: the same updates as the optimizer it names, the global
step incremented, the loss returned after the update, TF 1.15's summaries and errors.
Expected values come from the plain optimizer run on the same graph."""
import numpy as np
import pytest

import tfteach as tf

X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]], np.float32)
Y = np.array([[1.0], [0.0], [2.0]], np.float32)


def model():
    w = tf.get_variable("w", initializer=tf.constant([[0.3], [-0.2]]))
    return w, tf.reduce_mean(tf.square(tf.matmul(X, w) - Y))


def train(make_train_op, steps=3):
    tf.reset_default_graph()
    step = tf.train.get_or_create_global_step()
    w, loss = model()
    train_op = make_train_op(loss, step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        outputs = [sess.run(train_op) for _ in range(steps)]
        return outputs, sess.run(w), sess.run(step), loss


@pytest.mark.parametrize("name, optimizer", [
    ("Adagrad", lambda lr: tf.train.AdagradOptimizer(lr)),
    ("SGD", lambda lr: tf.train.GradientDescentOptimizer(lr)),
    ("Momentum", lambda lr: tf.train.MomentumOptimizer(lr, 0.9))])
def test_same_updates_as_the_optimizer(name, optimizer):
    outputs, w, step, _ = train(lambda loss, step: tf.contrib.layers.optimize_loss(
        loss, step, learning_rate=0.1, optimizer=name))
    _, w_ref, _, _ = train(lambda loss, step: optimizer(0.1).minimize(loss, global_step=step))
    np.testing.assert_allclose(w, w_ref, rtol=1e-6)
    assert step == 3


def test_returns_the_loss_and_builds_tf_names():
    tf.reset_default_graph()
    step = tf.train.get_or_create_global_step()
    _, loss = model()
    train_op = tf.contrib.layers.optimize_loss(loss, step, 0.05, "Adam",
                                               clip_gradients=1.0)
    names = {v.op.name for v in tf.global_variables()}
    assert "OptimizeLoss/learning_rate" in names
    tags = sorted(op.name for op in tf.get_default_graph().get_operations()
                  if op.type == "ScalarSummary")
    # The learning-rate variable holds the name `OptimizeLoss/learning_rate` first.
    assert tags == ["OptimizeLoss/global_norm/clipped_gradient_norm",
                    "OptimizeLoss/global_norm/gradient_norm", "OptimizeLoss/learning_rate_1",
                    "OptimizeLoss/loss"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss)
        assert sess.run(train_op) == pytest.approx(before)   # the loss of the batch trained


def test_errors_as_tf():
    tf.train.get_or_create_global_step()
    _, loss = model()
    with pytest.raises(ValueError, match=r"Optimizer name should be one of \[Adagrad, Adam, "
                                         r"Ftrl, Momentum, RMSProp, SGD\], you provided Nope."):
        tf.contrib.layers.optimize_loss(loss, None, 0.1, "Nope")
    with pytest.raises(ValueError, match="Learning rate is None, but should be specified"):
        tf.contrib.layers.optimize_loss(loss, None, None, "SGD")
    with pytest.raises(ValueError, match="Summaries should be one of"):
        tf.contrib.layers.optimize_loss(loss, None, 0.1, "SGD", summaries=["weights"])
