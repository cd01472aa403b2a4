"""Per-step training time, next to hand-written NumPy and TensorFlow doing the same step.

Workloads (GradientDescent, float32):
  linreg  y = W*x + b on 100 points, mean squared error;
  mlp     784-500-10 with ReLU and softmax cross entropy, batch 100.
The NumPy versions compute the same forward and backward pass by hand. TensorFlow runs
the same TF1 graph through tf.compat.v1 when it is importable. All in one process run.

    python bench/train_steps.py [--quick]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import best_seconds  # noqa: E402


def best_ms(fn, number, repeat=5):
    return best_seconds(fn, number, repeat) * 1e3


def linreg_data():
    rng = np.random.RandomState(0)
    xs = rng.rand(100).astype(np.float32)
    return xs, (3 * xs + 2).astype(np.float32)


def mlp_data():
    rng = np.random.RandomState(0)
    x = rng.rand(100, 784).astype(np.float32)
    labels = rng.randint(0, 10, size=100)
    y = np.eye(10, dtype=np.float32)[labels]
    w1 = (rng.randn(784, 500) * 0.05).astype(np.float32)
    w2 = (rng.randn(500, 10) * 0.05).astype(np.float32)
    return x, y, w1, w2


# -- the graphs, for tfteach and TensorFlow alike ------------------------------------------
def linreg_graph(tf):
    xs, ys = linreg_data()
    x = tf.placeholder(tf.float32, [100])
    y = tf.placeholder(tf.float32, [100])
    w = tf.Variable(tf.constant([0.5]))
    b = tf.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return step, {x: xs, y: ys}


def mlp_graph(tf):
    x_val, y_val, w1_val, w2_val = mlp_data()
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [None, 10])
    w1 = tf.Variable(w1_val)
    b1 = tf.Variable(tf.zeros([500]))
    w2 = tf.Variable(w2_val)
    b2 = tf.Variable(tf.zeros([10]))
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return step, {x: x_val, y: y_val}


# -- hand-written NumPy ------------------------------------------------------------------------
def numpy_linreg():
    xs, ys = linreg_data()
    state = {"w": np.float32(0.5), "b": np.float32(0.0)}
    lr = np.float32(0.1)

    def step():
        err = state["w"] * xs + state["b"] - ys
        g = np.float32(2.0 / len(xs)) * err
        state["w"] = state["w"] - lr * np.dot(g, xs)
        state["b"] = state["b"] - lr * g.sum()
    return step


def numpy_mlp():
    x, y, w1, w2 = mlp_data()
    state = {"w1": w1, "b1": np.zeros(500, np.float32), "w2": w2,
             "b2": np.zeros(10, np.float32)}
    lr = np.float32(0.1)

    def step():
        s = state
        pre = x @ s["w1"] + s["b1"]
        hidden = np.maximum(pre, 0)
        logits = hidden @ s["w2"] + s["b2"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        d_logits = (probs - y) / np.float32(len(x))
        d_hidden = d_logits @ s["w2"].T
        d_pre = d_hidden * (pre > 0)
        s["w2"] = s["w2"] - lr * (hidden.T @ d_logits)
        s["b2"] = s["b2"] - lr * d_logits.sum(axis=0)
        s["w1"] = s["w1"] - lr * (x.T @ d_pre)
        s["b1"] = s["b1"] - lr * d_pre.sum(axis=0)
    return step


def graph_step(tf, build):
    graph = tf.Graph()
    with graph.as_default():
        step, feed = build(tf)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    return lambda: sess.run(step, feed_dict=feed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import tfteach
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow
        tensorflow.compat.v1.disable_eager_execution()
        tensorflow.compat.v1.disable_resource_variables()
        tf1 = tensorflow.compat.v1
    except ImportError:
        tf1 = None
    workloads = [("linreg step", linreg_graph, numpy_linreg, 2000),
                 ("mlp step", mlp_graph, numpy_mlp, 50)]
    print("Training step time, milliseconds per step (best of 5)")
    header = "%-12s %10s %10s %10s %12s %12s" % (
        "workload", "tfteach", "numpy", "tensorflow", "tfteach/np", "tfteach/tf")
    print(header)
    print("-" * len(header))
    for name, build, numpy_build, number in workloads:
        number = max(2, number // (10 if args.quick else 1))
        ours = best_ms(graph_step(tfteach, build), number)
        np_ms = best_ms(numpy_build(), number)
        tf_ms = best_ms(graph_step(tf1, build), number) if tf1 is not None else None
        print("%-12s %10.3f %10.3f %10s %12.2f %12s" % (
            name, ours, np_ms, "-" if tf_ms is None else "%.3f" % tf_ms, ours / np_ms,
            "-" if tf_ms is None else "%.2f" % (ours / tf_ms)))


if __name__ == "__main__":
    main()
