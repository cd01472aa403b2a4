"""Eager execution: the time of one op, tfteach against TensorFlow's eager, same run.

Three workloads, each run by tfteach (`import tfteach.v2`) and by TensorFlow 2 eagerly:
  scalar add   `a + b` on two scalars (the per-op overhead, nothing else);
  vector chain 100 ops (`x = x * 1.0001 + 0.5`, 50 times) on a 100-vector;
  MLP step     a 784-100-10 MLP's forward pass, loss, GradientTape gradients and the
               four `assign_sub` updates, batch 64.
Then note 002's experiment: a function called 1000 times eagerly and as a tf.function
(tfteach's traced graph run by a Session), for a small model (one matmul) and a
deeper one (ten dense layers).

Time per call is the median of 7 rounds. TensorFlow runs in a child process (so the
two never share a process's threads); without TensorFlow its column is blank.

    python bench/eager.py [--quick]
"""
import argparse
import os
import sys

from _common import child_json  # (bench/ is sys.path[0] when run as a script)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WORKLOADS = r'''
import numpy as np

def workloads(tf, rounds_scale=1):
    r = np.random.RandomState(0)
    a, b = tf.constant(1.0), tf.constant(2.0)
    v = tf.constant(r.randn(100).astype(np.float32))
    x = tf.constant(r.randn(64, 784).astype(np.float32))
    y = tf.constant(np.eye(10, dtype=np.float32)[r.randint(0, 10, 64)])
    w1 = tf.Variable(r.randn(784, 100).astype(np.float32) * 0.05)
    b1 = tf.Variable(np.zeros(100, np.float32))
    w2 = tf.Variable(r.randn(100, 10).astype(np.float32) * 0.05)
    b2 = tf.Variable(np.zeros(10, np.float32))
    params = [w1, b1, w2, b2]

    def scalar_add():
        return a + b

    def chain():
        t = v
        for _ in range(50):
            t = t * 1.0001 + 0.5
        return t

    def mlp_step():
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
            logits = tf.matmul(h, w2) + b2
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y,
                                                                          logits=logits))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads):
            p.assign_sub(0.1 * g)
        return loss

    small_w = tf.constant(r.randn(28 * 28, 10).astype(np.float32))
    deep_ws = [tf.constant(r.randn(64, 64).astype(np.float32) * 0.1) for _ in range(10)]
    image = tf.constant(r.randn(60, 28 * 28).astype(np.float32))
    h0 = tf.constant(r.randn(60, 64).astype(np.float32))

    def shallow(inp):
        return tf.matmul(inp, small_w)

    def deep(inp):
        for w in deep_ws:
            inp = tf.nn.relu(tf.matmul(inp, w))
        return inp

    return {
        "scalar add (1 op)": (scalar_add, 1, 2000),
        "vector chain (100 ops)": (chain, 100, 50),
        "MLP step (tape + 4 updates)": (mlp_step, None, 50),
        "note 002 shallow, eager": ((lambda: shallow(image)), None, 1000),
        "note 002 shallow, tf.function": ((lambda f=tf.function(shallow): f(image)), None, 1000),
        "note 002 deep, eager": ((lambda: deep(h0)), None, 1000),
        "note 002 deep, tf.function": ((lambda f=tf.function(deep): f(h0)), None, 1000),
    }


def measure(tf, quick):
    import time, statistics
    results = {}
    for name, (fn, ops, calls) in workloads(tf).items():
        calls = max(1, calls // (10 if quick else 1))
        fn()
        fn()                                     # warm: traces, Numba compilation
        rounds = []
        for _ in range(3 if quick else 7):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            rounds.append((time.perf_counter() - start) / calls)
        results[name] = (statistics.median(rounds), ops)
    return results
'''


def _tensorflow(quick):
    code = WORKLOADS + ("\nimport json, tensorflow as tf\n"
                        "print(json.dumps(measure(tf, %r)))\n" % quick)
    return child_json(code, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
                                     CUDA_VISIBLE_DEVICES=""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    import tfteach.v2 as tf
    namespace = {}
    exec(WORKLOADS, namespace)                   # noqa: S102 - the shared workloads
    ours = namespace["measure"](tf, args.quick)
    theirs = _tensorflow(args.quick) or {}
    print("%-32s %14s %14s %8s" % ("", "tfteach", "TensorFlow", "ratio"))
    for name, (seconds, ops) in ours.items():
        tf_seconds = theirs.get(name, (None, None))[0]
        per = " /op" if ops else ""
        ours_us = seconds / (ops or 1) * 1e6
        tf_us = tf_seconds / (ops or 1) * 1e6 if tf_seconds else None
        print("%-32s %10.1f us%s %10s %8s" % (
            name, ours_us, per, "%.1f us" % tf_us if tf_us else "-",
            "%.2fx" % (ours_us / tf_us) if tf_us else "-"))
    for label, key in (("shallow", "note 002 shallow"), ("deep", "note 002 deep")):
        eager = ours[key + ", eager"][0]
        graph = ours[key + ", tf.function"][0]
        print("note 002 %s: tf.function is %.2fx eager's speed in tfteach" %
              (label, eager / graph), end="")
        if theirs:
            print(", %.2fx in TensorFlow" % (theirs[key + ", eager"][0] /
                                              theirs[key + ", tf.function"][0]))
        else:
            print()


if __name__ == "__main__":
    main()
