"""Per-step training time of small networks, next to TensorFlow and hand-written NumPy.

Workloads (float32, GradientDescent):
  mlp    784-500-10, ReLU, softmax cross entropy, batch 100;
  lenet  LeNet-5 as in TF's "Deep MNIST" tutorial: conv 5x5x32 SAME + relu + maxpool 2x2,
         conv 5x5x64 SAME + relu + maxpool 2x2, fc 1024 + relu, fc 10, batch 50;
  lstm   2-layer LSTM, hidden 128, 20 steps, batch 32, softmax loss on the last output;
  gru    the same with GRU cells;
  charlm a character LM: embedding 65 -> 32, LSTM 128, softmax at each of 20 steps;
  mnist_rnn  the notes' LSTM on MNIST rows: 3 BasicLSTMCell(64) layers with dropout, 28
         steps, batch 128, Adam.
TensorFlow runs the same TF1 graph through tf.compat.v1 (when importable), twice: as
installed (TF 2.x calls Intel's oneDNN kernels on x86), and in a child process with
TF_ENABLE_ONEDNN_OPTS=0, which gives Eigen's kernels — what TF 1.15's pip wheels used,
the reference tfteach reproduces. The NumPy versions compute the same forward and
backward pass by hand (MLP, LeNet, the 2-layer LSTM). Rows whose
ops tfteach does not have yet (max_pool, dynamic_rnn) print why and are skipped.
Then conv2d forward throughput in GFLOP/s: tfteach, NumPy im2col + matmul, TensorFlow.

    python bench/nn_steps.py [--quick] [--device gpu|virtual-gpu] [--only lstm gru charlm mnist_rnn]

The RNN rows are followed by A/Bs in the same process, alternating rounds: loop
specialisation (runtime/loop_specialise.py) and loop optimization (hoisting and the
pretransposed gradient products, runtime/loop_hoisting.py) on and off: the
before/after of issue 20. `--ab-only` runs just those (no table, no TensorFlow).

`--interleaved` (with `--only ...` as wanted) times tfteach, the NumPy step and
TensorFlow in turns, round after round, and prints the best and the median of each and
their ratios: on a shared VM, whose load moves single runs by 1.5x within minutes, these
are the fair same-run ratios (the table above compares each library's best minute).

With `--device virtual-gpu`: the steps as the course kernel ("Python 3 (tfteach)") runs
them, on its virtual /gpu:0 (CPU kernels, the GPU's memory accounted), next to tfteach on
the CPU in the same run.

With `--device gpu` (a machine with an NVIDIA GPU): the same three steps run by
tfteach's CUDA kernels, next to tfteach on the CPU and TensorFlow on the same GPU
(when a GPU build of TensorFlow is installed).
"""
import argparse
import json
import os
import subprocess
import sys
import time
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import best_seconds, cpu_model  # noqa: E402


def best_ms(fn, number, repeat=5):
    # Three warm-up calls: Numba loads its cache, buffers get allocated.
    return best_seconds(fn, number, repeat, warmups=3) * 1e3


def _weights(rng, shape, scale=0.05):
    return (rng.randn(*shape) * scale).astype(np.float32)


# -- the graphs, for tfteach and TensorFlow alike -------------------------------------------
def mlp_data():
    rng = np.random.RandomState(0)
    x = rng.rand(100, 784).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=100)]
    return x, y, _weights(rng, (784, 500)), _weights(rng, (500, 10))


def mlp_graph(tf):
    x_val, y_val, w1_val, w2_val = mlp_data()
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [None, 10])
    w1, b1 = tf.Variable(w1_val), tf.Variable(tf.zeros([500]))
    w2, b2 = tf.Variable(w2_val), tf.Variable(tf.zeros([10]))
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss), {x: x_val, y: y_val}


def lenet_data():
    rng = np.random.RandomState(0)
    x = rng.rand(50, 28, 28, 1).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=50)]
    params = [_weights(rng, (5, 5, 1, 32)), np.full(32, 0.1, np.float32),
              _weights(rng, (5, 5, 32, 64)), np.full(64, 0.1, np.float32),
              _weights(rng, (7 * 7 * 64, 1024)), np.full(1024, 0.1, np.float32),
              _weights(rng, (1024, 10)), np.full(10, 0.1, np.float32)]
    return x, y, params


def lenet_graph(tf):
    x_val, y_val, params = lenet_data()
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.placeholder(tf.float32, [None, 10])
    w1, b1, w2, b2, w3, b3, w4, b4 = [tf.Variable(p) for p in params]
    h = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.relu(tf.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME") + b2)
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 7 * 7 * 64]), w3) + b3)
    logits = tf.matmul(h, w4) + b4
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return tf.train.GradientDescentOptimizer(0.01).minimize(loss), {x: x_val, y: y_val}


def lstm_graph(tf):
    return _two_layer_rnn_graph(tf, tf.nn.rnn_cell.LSTMCell)


def gru_graph(tf):
    return _two_layer_rnn_graph(tf, tf.nn.rnn_cell.GRUCell)


def _two_layer_rnn_graph(tf, cell_class):
    rng = np.random.RandomState(0)
    x_val = rng.rand(32, 20, 28).astype(np.float32)
    y_val = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=32)]
    x = tf.placeholder(tf.float32, [None, 20, 28])
    y = tf.placeholder(tf.float32, [None, 10])
    cells = [cell_class(128) for _ in range(2)]
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), x, dtype=tf.float32)
    w = tf.Variable(_weights(rng, (128, 10)))
    logits = tf.matmul(outputs[:, -1, :], w)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    return tf.train.GradientDescentOptimizer(0.1).minimize(loss), {x: x_val, y: y_val}


def charlm_graph(tf):
    """A character language model as the notes train one: embedding 65 -> 32, an LSTM of
    128, a softmax over the 65 characters at each of 20 steps, batch 32."""
    rng = np.random.RandomState(0)
    vocab, steps = 65, 20
    ids = rng.randint(0, vocab, (32, steps + 1))
    x = tf.placeholder(tf.int32, [None, steps])
    y = tf.placeholder(tf.int32, [None, steps])
    embedding = tf.Variable(_weights(rng, (vocab, 32)))
    inputs = tf.nn.embedding_lookup(embedding, x)
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(128), inputs, dtype=tf.float32)
    w, b = tf.Variable(_weights(rng, (128, vocab))), tf.Variable(tf.zeros([vocab]))
    logits = tf.reshape(tf.matmul(tf.reshape(outputs, [-1, 128]), w) + b, [-1, steps, vocab])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    return (tf.train.GradientDescentOptimizer(0.5).minimize(loss),
            {x: ids[:, :-1], y: ids[:, 1:]})


def mnist_rnn_graph(tf):
    """The notes' LSTM on MNIST rows (seed-inventory E63), as written there: an image's 28
    rows as 28 time steps through three BasicLSTMCell(64) layers, each in a
    DropoutWrapper whose output_keep_prob is fed (0.5 in training), from zero_state of a
    fed batch size, dynamic_rnn, a softmax on the last output, the cross-entropy by
    hand, Adam; batch 128 (random pixels: the speed does not depend on them)."""
    rng = np.random.RandomState(0)
    x_val = rng.rand(128, 28, 28).astype(np.float32)
    y_val = np.eye(10, dtype=np.float32)[rng.randint(0, 10, size=128)]
    x = tf.placeholder(tf.float32, [None, 28, 28])
    y = tf.placeholder(tf.float32, [None, 10])
    keep_prob = tf.placeholder(tf.float32, [])
    batch_size = tf.placeholder(tf.int32, [])

    def layer():
        cell = tf.nn.rnn_cell.BasicLSTMCell(64, forget_bias=1.0, state_is_tuple=True)
        return tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=1.0,
                                             output_keep_prob=keep_prob)
    cells = tf.nn.rnn_cell.MultiRNNCell([layer() for _ in range(3)], state_is_tuple=True)
    state = cells.zero_state(batch_size, dtype=tf.float32)
    outputs, _ = tf.nn.dynamic_rnn(cells, inputs=x, initial_state=state, time_major=False)
    w = tf.Variable(_weights(rng, (64, 10), 0.1))
    b = tf.Variable(np.full(10, 0.1, np.float32))
    y_pre = tf.nn.softmax(tf.matmul(outputs[:, -1, :], w) + b)
    loss = -tf.reduce_mean(y * tf.log(y_pre))
    return (tf.train.AdamOptimizer(1e-3).minimize(loss),
            {x: x_val, y: y_val, keep_prob: 0.5, batch_size: 128})


def graph_step(tf, build, config=None):
    graph = tf.Graph()
    with graph.as_default():
        step, feed = build(tf)
        sess = tf.Session(graph=graph, config=config)
        sess.run(tf.global_variables_initializer())
    return lambda: sess.run(step, feed_dict=feed)


# -- hand-written NumPy ------------------------------------------------------------------------
def _softmax_xent_grad(logits, y):
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    return (probs - y) / np.float32(len(y))


def numpy_mlp():
    x, y, w1, w2 = mlp_data()
    s = {"w1": w1, "b1": np.zeros(500, np.float32), "w2": w2, "b2": np.zeros(10, np.float32)}
    lr = np.float32(0.1)

    def step():
        pre = x @ s["w1"] + s["b1"]
        hidden = np.maximum(pre, 0)
        d_logits = _softmax_xent_grad(hidden @ s["w2"] + s["b2"], y)
        d_pre = (d_logits @ s["w2"].T) * (pre > 0)
        s["w2"] -= lr * (hidden.T @ d_logits)
        s["b2"] -= lr * d_logits.sum(axis=0)
        s["w1"] -= lr * (x.T @ d_pre)
        s["b1"] -= lr * d_pre.sum(axis=0)
    return step


def np_im2col(x, k, pad):
    """[N*H*W, k*k*C] windows of a stride-1 convolution (NumPy strided view + copy)."""
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (k, k), axis=(1, 2))
    n, h, w, c = win.shape[:4]       # win: [n, h, w, c, k, k] -> rows (a, e, c)
    return win.transpose(0, 1, 2, 4, 5, 3).reshape(n * h * w, k * k * c)


def np_conv_same(x, f):
    n, h, w, _ = x.shape
    k, oc = f.shape[0], f.shape[3]
    return (np_im2col(x, k, k // 2) @ f.reshape(-1, oc)).reshape(n, h, w, oc)


def _pool(h):
    n, hh, ww, c = h.shape
    blocks = h.reshape(n, hh // 2, 2, ww // 2, 2, c)
    out = blocks.max(axis=(2, 4))
    mask = blocks == out[:, :, None, :, None, :]
    return out, mask


def _unpool(g, mask):
    return (mask * g[:, :, None, :, None, :]).reshape(
        mask.shape[0], mask.shape[1] * 2, mask.shape[3] * 2, mask.shape[5])


def numpy_lenet():
    x, y, params = lenet_data()
    p = [v.copy() for v in params]
    lr = np.float32(0.01)

    def step():
        w1, b1, w2, b2, w3, b3, w4, b4 = p
        a1 = np.maximum(np_conv_same(x, w1) + b1, 0)
        p1, m1 = _pool(a1)
        cols2 = np_im2col(p1, 5, 2)
        a2 = np.maximum((cols2 @ w2.reshape(-1, 64)).reshape(50, 14, 14, 64) + b2, 0)
        p2, m2 = _pool(a2)
        flat = p2.reshape(50, -1)
        a3 = np.maximum(flat @ w3 + b3, 0)
        d4 = _softmax_xent_grad(a3 @ w4 + b4, y)
        d3 = (d4 @ w4.T) * (a3 > 0)
        d_a2 = _unpool((d3 @ w3.T).reshape(p2.shape), m2) * (a2 > 0)
        g2 = d_a2.reshape(-1, 64)
        # input gradient of a SAME stride-1 conv: the full correlation with the flipped filter
        d_p1 = np_conv_same(d_a2, w2[::-1, ::-1].transpose(0, 1, 3, 2))
        d_a1 = _unpool(d_p1, m1) * (a1 > 0)
        grads = [(np_im2col(x, 5, 2).T @ d_a1.reshape(-1, 32)).reshape(w1.shape),
                 d_a1.sum(axis=(0, 1, 2)), (cols2.T @ g2).reshape(w2.shape), g2.sum(axis=0),
                 flat.T @ d3, d3.sum(axis=0), a3.T @ d4, d4.sum(axis=0)]
        for v, g in zip(p, grads):
            v -= lr * g
    return step


def lstm_data():
    """The lstm row's inputs [32, 20, 28], one-hot labels [32, 10], each layer's
    (kernel [input width + 128, 512], bias [512]) and the softmax weights [128, 10], as
    lstm_graph's variables would be loaded (the hand-written steps start from these)."""
    rng = np.random.RandomState(0)
    batch, steps, units, classes = 32, 20, 128, 10
    x_val = rng.rand(batch, steps, 28).astype(np.float32)
    y_val = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, size=batch)]
    layers = [(_weights(rng, (n + units, 4 * units)), np.zeros(4 * units, np.float32))
              for n in (28, units)]
    return x_val, y_val, layers, _weights(rng, (units, classes))


def numpy_lstm():
    """The lstm row's step by hand: two LSTM layers (TF's LSTMCell: the gates i, j, f, o
    of one product of [x, h], forget bias 1) over 20 steps, a softmax on the last output,
    backpropagation through time. Each layer's weight gradient is one product over all
    time steps (as tfteach's loop_sums.Products computes it); NumPy's ufuncs do the cells,
    a pass per op. What the step costs with no graph and no executor: the floor of any
    design that runs the same NumPy operations."""
    x_val, y_val, layers, w_out = lstm_data()
    batch, steps, units = x_val.shape[0], x_val.shape[1], w_out.shape[0]
    widths = tuple(w.shape[0] - units for w, _ in layers)   # each layer's input width
    lr, one = np.float32(0.1), np.float32(1)

    def sigmoid(v):
        return one / (one + np.exp(-v))

    def forward(w, b, inputs):
        h = c = np.zeros((batch, units), np.float32)
        outputs, cache = [], []
        for x in inputs:
            xh = np.concatenate([x, h], axis=1)
            i, j, f, o = np.split(xh @ w + b, 4, axis=1)
            i, j, f, o = sigmoid(i), np.tanh(j), sigmoid(f + one), sigmoid(o)
            c_prev, c = c, c * f + i * j
            tc = np.tanh(c)
            h = tc * o
            cache.append((xh, c_prev, i, j, f, o, tc))
            outputs.append(h)
        return outputs, cache

    def backward(w, b, cache, width, d_outputs):
        dh = dc = np.zeros((batch, units), np.float32)
        d_gates = np.empty((steps * batch, 4 * units), np.float32)
        d_inputs = [None] * steps
        for t in reversed(range(steps)):
            xh, c_prev, i, j, f, o, tc = cache[t]
            if d_outputs[t] is not None:
                dh = dh + d_outputs[t]
            dc = dc + dh * o * (one - tc * tc)
            g = d_gates[t * batch:(t + 1) * batch]
            g[:, :units] = dc * j * i * (one - i)
            g[:, units:2 * units] = dc * i * (one - j * j)
            g[:, 2 * units:3 * units] = dc * c_prev * f * (one - f)
            g[:, 3 * units:] = dh * tc * o * (one - o)
            dc = dc * f
            dxh = g @ w.T
            d_inputs[t], dh = dxh[:, :width], dxh[:, width:]
        w -= lr * (np.concatenate([c[0] for c in cache]).T @ d_gates)
        b -= lr * d_gates.sum(axis=0)
        return d_inputs

    def step():
        inputs, caches = [x_val[:, t] for t in range(steps)], []
        for w, b in layers:
            inputs, cache = forward(w, b, inputs)
            caches.append(cache)
        d_logits = _softmax_xent_grad(inputs[-1] @ w_out, y_val)
        d_w_out = inputs[-1].T @ d_logits
        d_outputs = [None] * (steps - 1) + [d_logits @ w_out.T]
        for (w, b), cache, width in reversed(list(zip(layers, caches, widths))):
            d_outputs = backward(w, b, cache, width, d_outputs)
        w_out[...] -= lr * d_w_out
    step.variables = [v for layer in layers for v in layer] + [w_out]   # (for a check)
    return step

# -- conv2d forward throughput --------------------------------------------------------------
CONV_CASES = [("lenet conv2 50x14x14x32 5x5x64", (50, 14, 14, 32), (5, 5, 32, 64)),
              ("64x32x32x64 3x3x64", (64, 32, 32, 64), (3, 3, 64, 64))]


def conv_gflops(tf, x, f, number):
    graph = tf.Graph()
    with graph.as_default():
        xp = tf.placeholder(tf.float32, x.shape)
        out = tf.reduce_sum(tf.nn.conv2d(xp, tf.constant(f), [1, 1, 1, 1], "SAME"))
        sess = tf.Session(graph=graph)
    return best_ms(lambda: sess.run(out, {xp: x}), number)


def _flops(x_shape, f_shape):
    n, h, w, _ = x_shape
    return 2.0 * n * h * w * np.prod(f_shape)


# Issue 4's targets: a LeNet step no slower than TensorFlow's, an MLP step <= 0.8x.
TARGETS = {"lenet": 1.0, "mlp": 0.8}

WORKLOADS = [("mlp", mlp_graph, numpy_mlp, 50), ("lenet", lenet_graph, numpy_lenet, 10),
             ("lstm", lstm_graph, numpy_lstm, 5), ("gru", gru_graph, None, 5),
             ("charlm", charlm_graph, None, 5), ("mnist_rnn", mnist_rnn_graph, None, 3)]
RNN_WORKLOADS = ("lstm", "gru", "charlm", "mnist_rnn")


def loop_specialisation_ab(tfteach, numbers, only):
    """tfteach's RNN steps with loop specialisation (runtime/loop_specialise.py) on and
    off, alternating in this one process: the before/after of issue 20."""
    def steps(build):
        made = {}
        for flag in ("1", "0"):        # the flag is read when a loop's plans are built
            os.environ["TFTEACH_LOOP_SPECIALISE"] = flag
            made[flag] = graph_step(tfteach, build)
            made[flag]()
        os.environ.pop("TFTEACH_LOOP_SPECIALISE")
        return made["1"], made["0"]
    _alternating_ab("loop specialisation A/B (same run; off = TFTEACH_LOOP_SPECIALISE=0)",
                    steps, numbers, only)


def loop_optimization_ab(tfteach, numbers, only):
    """tfteach's RNN steps with loop-invariant hoisting and the pretransposed `dy @ W^T`
    (runtime/loop_hoisting.py) on and off (`RewriterConfig(loop_optimization=OFF)`),
    alternating in this one process."""
    from tfteach.runtime.config import RewriterConfig
    off = tfteach.ConfigProto(graph_options=tfteach.GraphOptions(
        rewrite_options=RewriterConfig(loop_optimization=RewriterConfig.OFF)))

    def steps(build):
        return graph_step(tfteach, build), graph_step(tfteach, build, off)
    _alternating_ab("loop optimization A/B (same run; off = RewriterConfig("
                    "loop_optimization=OFF))", steps, numbers, only)


def region_fusion_ab(tfteach, numbers, only):
    """tfteach's RNN steps with their cells' gates fused into one Numba kernel each
    (runtime/optimizer/elementwise_regions.py) and without, alternating in this one
    process: the same graphs, the same bits."""
    from tfteach.runtime.optimizer import elementwise_regions

    def steps(build):
        made = {}
        for flag in (True, False):     # read when a plan (and a loop's) is built
            elementwise_regions.ENABLED = flag
            made[flag] = graph_step(tfteach, build)
            made[flag]()
        elementwise_regions.ENABLED = True
        return made[True], made[False]
    _alternating_ab("region fusion A/B (same run; off = elementwise_regions.ENABLED "
                    "False)", steps, numbers, only)


def gpu_loop_sums_ab(tfteach, numbers, only):
    """On the virtual GPU: the RNN steps with WhileGrad's deferred weight products and
    gathered rows (runtime/loop_sums.py; the GPU's allocator charges each stand-in as
    the tensor it replaces) and with every iteration's tensors made, alternating in this
    one process. "off" replaces fusion.defer_summed_products with the steps as built,
    from outside (tfteach has no switch for it)."""
    from tfteach.runtime import fusion
    deferring = fusion.defer_summed_products

    def steps(build):
        made = {}
        for on in (True, False):       # used when a loop's gradient plan is built
            fusion.defer_summed_products = deferring if on else (lambda steps, *_: steps)
            try:
                made[on] = graph_step(tfteach, build)
                made[on]()
            finally:
                fusion.defer_summed_products = deferring
        return made[True], made[False]
    _alternating_ab("virtual GPU: deferred loop sums A/B (same run; off = every "
                    "iteration's product and gather gradient made)", steps, numbers, only)


def steady_state():
    """Fused kernels (chains' runs, cells' regions) compile at their first run here; a
    student's session compiles them once they have run unfused as long as compiling
    would take (docs/optimizer.md): these rows are what a training run reaches."""
    from tfteach.runtime.optimizer import fused_arithmetic
    fused_arithmetic.COMPILE_AFTER_SECONDS = 0.0


def _alternating_ab(title, make_steps, numbers, only, rounds=7):
    """Prints, per RNN workload, the best ms per step of the two steps `make_steps(build)`
    returns (on, off), timed in alternating rounds: both see the same host load."""
    print("\n%s, ms per step" % title)
    print("%-8s %9s %9s %9s" % ("workload", "on", "off", "on/off"))
    for name, build, _, _ in WORKLOADS:
        if name not in RNN_WORKLOADS or (only and name not in only):
            continue
        on, off = make_steps(build)
        for step in (on, off):
            best_ms(step, 1, repeat=1)                     # warm-up
        best = [float("inf"), float("inf")]
        for _ in range(rounds):
            for i, step in enumerate((on, off)):
                best[i] = min(best[i], timeit.timeit(step, number=numbers[name]) /
                              numbers[name] * 1e3)
        print("%-8s %9.2f %9.2f %9.2f" % (name, best[0], best[1], best[0] / best[1]))


def interleaved_rows(tfteach, tf1, numbers, rounds=12, pause=0.3):
    """Each workload's step by tfteach, hand-written NumPy (where there is one) and
    TensorFlow, timed in turns: round after round, each runs `number` steps, so a busy
    minute of the host falls on all of them alike (on a shared VM single runs move by
    1.5x or more within minutes, and best-of-5 one library after the other compares
    different minutes). `pause` between turns lets OpenBLAS's idle threads stop
    spinning (~0.1 s after a product) before the next library starts. Prints the best
    and the median of the rounds, and the ratios of both."""
    import statistics
    print("\nInterleaved: %d rounds, each library in turn; ms per step, best / median"
          % rounds)
    header = "%-8s %15s %15s %15s %16s %16s" % (
        "workload", "tfteach", "numpy", "tf", "tfteach/tf", "numpy/tf")
    print(header)
    print("-" * len(header))
    for name, build, numpy_build, _ in WORKLOADS:
        number = numbers[name]
        steps = {"tfteach": graph_step(tfteach, build)}
        if numpy_build is not None:
            steps["numpy"] = numpy_build()
        if tf1 is not None:
            try:
                steps["tf"] = graph_step(tf1, build)
            except (AttributeError, ImportError, ValueError):
                pass
        times = interleaved_times(steps, number, rounds, pause)
        summary = {label: (min(v), statistics.median(v)) for label, v in times.items()}

        def cell(label):
            return "%6.2f / %6.2f" % summary[label] if label in summary else "-"

        def ratio(a, b):
            if a not in summary or b not in summary:
                return "-"
            return "%5.2f, %5.2f" % (summary[a][0] / summary[b][0],
                                     summary[a][1] / summary[b][1])
        print("%-8s %15s %15s %15s %16s %16s" % (
            name, cell("tfteach"), cell("numpy"), cell("tf"), ratio("tfteach", "tf"),
            ratio("numpy", "tf")))


def interleaved_times(steps, number, rounds=12, pause=0.3):
    """{label: [ms per step, one a round]}: `steps` ({label: step}) warmed up, then timed
    in turns, `number` steps a turn, `pause` seconds before each turn (see
    interleaved_rows)."""
    for step in steps.values():
        best_ms(step, 1, repeat=1)                         # warm-up
    times = {label: [] for label in steps}
    for _ in range(rounds):
        for label, step in steps.items():
            time.sleep(pause)
            times[label].append(timeit.timeit(step, number=number) / number * 1e3)
    return times


def paired_times(steps, rounds):
    """{label: [ms, one a round]}: `steps` ({label: step}) warmed up, then run one step
    each in turn, `rounds` times, with no pause. Each round's steps see nearly the same
    moment of the host, so a ratio taken round by round (`paired_ratios`) is far steadier
    than the ratio of two medians. TensorFlow's thread pool and caches start cold after
    another library's step, though, so its figures here are slower than in turns
    (docs/rnn.md, "Measured again, step by step")."""
    for step in steps.values():
        best_ms(step, 1, repeat=1)                         # warm-up
    times = {label: [] for label in steps}
    clock = time.perf_counter
    for _ in range(rounds):
        for label, step in steps.items():
            start = clock()
            step()
            times[label].append((clock() - start) * 1e3)
    return times


def paired_ratios(times, label, reference):
    """(median, p25, p75) of times[label][i] / times[reference][i] over the rounds."""
    ratios = sorted(a / b for a, b in zip(times[label], times[reference]))
    n = len(ratios)
    return ratios[n // 2], ratios[n // 4], ratios[(3 * n) // 4]


def import_tf1():
    """tf.compat.v1 in graph mode with ref variables, or None when not installed."""
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        # tf.compat.v1.nn.rnn_cell needs Keras 2 (the tf_keras package) under TF >= 2.16.
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow
    except ImportError:
        return None
    tensorflow.compat.v1.disable_eager_execution()
    tensorflow.compat.v1.disable_resource_variables()
    return tensorflow.compat.v1


def tf_step_ms(tf1, build, number):
    try:
        return best_ms(graph_step(tf1, build), number)
    except (AttributeError, ImportError, ValueError) as e:   # e.g. no tf_keras for LSTMs
        print("  (TensorFlow row skipped: %s)" % str(e).splitlines()[0], file=sys.stderr)
        return None


def eigen_tf_times(quick):
    """{workload: ms} of TensorFlow with oneDNN off, measured in a child process (the
    switch is read when TensorFlow loads); {} when that fails."""
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="0")
    cmd = [sys.executable, os.path.abspath(__file__), "--tf-only"] + (["--quick"] * quick)
    only = [name for name, _, _, _ in WORKLOADS]
    cmd += ["--only"] + only
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError, OSError):
        return {}


def tf_sees_a_gpu(tf1):
    try:
        return bool(tf1.config.list_physical_devices("GPU"))
    except Exception:  # noqa: BLE001
        return False


def main_gpu(numbers):
    """The same steps on a real GPU: tfteach's CUDA kernels, tfteach on the CPU, and
    TensorFlow on the same GPU where a GPU build of TensorFlow is installed."""
    import tfteach
    from tfteach.runtime import devices
    gpus = [d for d in devices.local_devices() if d.kind == "cuda"]
    if not gpus:
        print("--device gpu: no CUDA GPU here (numba.cuda sees none); nothing to measure")
        return
    print("Training step time on %s, milliseconds per step (best of 5)"
          % gpus[0].description)
    tf1 = import_tf1()
    on_gpu = tf1 is not None and tf_sees_a_gpu(tf1)
    if not on_gpu:
        print("TensorFlow on this GPU: %s" % ("not installed" if tf1 is None else
                                             "installed without GPU support"))
    _steps_against_the_cpu(tfteach, numbers, "tfteach-gpu", tf1 if on_gpu else None)


def main_virtual_gpu(numbers):
    """The steps as the course kernel runs them, on its virtual /gpu:0 (CPU kernels with
    the GPU's memory accounted: docs/devices.md), against tfteach on the CPU, same run."""
    import tfteach
    tfteach.config.set_virtual_gpus(1, memory_limit=4096)
    print("Training step time on %s, milliseconds per step (best of 5)" % cpu_model())
    _steps_against_the_cpu(tfteach, numbers, "virtual-gpu")
    gpu_loop_sums_ab(tfteach, numbers, None)


def _steps_against_the_cpu(tfteach, numbers, label, tf1=None):
    """Each workload's step on the process's GPU (`label`), on the CPU, and with `tf1`
    (TensorFlow on the same GPU) where given."""
    header = "%-8s %12s %12s %9s %15s %14s" % ("workload", label, "tfteach-cpu",
                                                "tf-gpu", "gpu/cpu (ours)", "tfteach/tf-gpu")
    print(header)
    print("-" * len(header))
    cpu_only = tfteach.ConfigProto(device_count={"GPU": 0})
    for name, build, _, _ in WORKLOADS:
        number = numbers[name]
        gpu_ms = best_ms(graph_step(tfteach, build), number)
        cpu_ms = best_ms(graph_step(tfteach, build, cpu_only), number)
        tf_ms = tf_step_ms(tf1, build, number) if tf1 is not None else None
        print("%-8s %12.2f %12.2f %9s %15.2f %14s" % (
            name, gpu_ms, cpu_ms, "-" if tf_ms is None else "%.2f" % tf_ms, gpu_ms / cpu_ms,
            "-" if tf_ms is None else "%.2f" % (gpu_ms / tf_ms)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tf-only", action="store_true",
                        help="print TensorFlow's step times as JSON (used for the Eigen run)")
    parser.add_argument("--only", nargs="*", default=None,
                        help="only these workloads (e.g. --only lstm gru charlm)")
    parser.add_argument("--ab-only", action="store_true",
                        help="only the same-run A/Bs of the RNN rows (no table, no TF)")
    parser.add_argument("--interleaved", action="store_true",
                        help="only the steps of tfteach, NumPy and TF timed in turns, "
                             "round after round (fair on a busy host)")
    parser.add_argument("--device", choices=("cpu", "gpu", "virtual-gpu"), default="cpu",
                        help="gpu: the steps on a real CUDA GPU, against tfteach on the "
                             "CPU and TensorFlow on the same GPU; virtual-gpu: on the "
                             "course kernel's virtual /gpu:0, against tfteach on the CPU")
    args = parser.parse_args()
    if args.only:
        WORKLOADS[:] = [w for w in WORKLOADS if w[0] in args.only]
    numbers = {name: max(2, number // (5 if args.quick else 1))
               for name, _, _, number in WORKLOADS}
    if args.device == "gpu":
        return main_gpu(numbers)
    if args.device == "virtual-gpu":
        return main_virtual_gpu(numbers)
    steady_state()
    if args.ab_only:
        import tfteach
        print("RNN steps on %s" % cpu_model())
        loop_specialisation_ab(tfteach, numbers, args.only)
        loop_optimization_ab(tfteach, numbers, args.only)
        region_fusion_ab(tfteach, numbers, args.only)
        return
    tf1 = import_tf1()
    if args.tf_only:
        print(json.dumps({name: tf_step_ms(tf1, build, numbers[name]) if tf1 else None
                          for name, build, _, _ in WORKLOADS}))
        return
    import tfteach
    if args.interleaved:
        print("Training steps on %s" % cpu_model())
        return interleaved_rows(tfteach, tf1, numbers, rounds=5 if args.quick else 12)
    eigen = eigen_tf_times(args.quick) if tf1 is not None else {}
    print("Training step time on %s, milliseconds per step (best of 5)" % cpu_model())
    print("tf: TensorFlow as installed (oneDNN); tf-eigen: TF_ENABLE_ONEDNN_OPTS=0, the "
          "kernels of TF 1.15's wheels")
    header = "%-8s %9s %9s %9s %9s %11s %9s %14s" % (
        "workload", "tfteach", "numpy", "tf", "tf-eigen", "tfteach/np", "tfteach/tf",
        "tfteach/eigen")
    print(header)
    print("-" * len(header))
    fmt = lambda v, spec="%.2f": "-" if v is None else spec % v  # noqa: E731
    ratios = {}
    for name, build, numpy_build, _ in WORKLOADS:
        number = numbers[name]
        try:
            ours = best_ms(graph_step(tfteach, build), number)
        except (AttributeError, NotImplementedError, LookupError) as e:
            print("%-8s skipped: tfteach lacks an op (%s: %s)" % (name, type(e).__name__, e))
            continue
        np_ms = best_ms(numpy_build(), number) if numpy_build else None
        tf_ms = tf_step_ms(tf1, build, number) if tf1 is not None else None
        eigen_ms = eigen.get(name)
        print("%-8s %9.2f %9s %9s %9s %11s %9s %14s" % (
            name, ours, fmt(np_ms), fmt(tf_ms), fmt(eigen_ms), fmt(np_ms and ours / np_ms),
            fmt(tf_ms and ours / tf_ms), fmt(eigen_ms and ours / eigen_ms)))
        ratios[name] = (tf_ms and ours / tf_ms, eigen_ms and ours / eigen_ms)
    print("\nissue 4's targets: tfteach/tf <= %s" % ", ".join(
        "%.1f (%s)" % (limit, name) for name, limit in TARGETS.items()))
    for name, limit in TARGETS.items():
        for column, ratio in zip(("tf", "tf-eigen"), ratios.get(name, (None, None))):
            if ratio:
                print("  %-6s vs %-9s %.2f  %s" % (name, column, ratio,
                                                  "met" if ratio <= limit else "not met"))

    loop_specialisation_ab(tfteach, numbers, args.only)
    loop_optimization_ab(tfteach, numbers, args.only)
    region_fusion_ab(tfteach, numbers, args.only)
    if args.only:
        return
    print("\nconv2d forward (SAME, stride 1), GFLOP/s")
    print("%-32s %9s %9s %11s" % ("case", "tfteach", "numpy", "tensorflow"))
    rng = np.random.RandomState(0)
    for name, x_shape, f_shape in CONV_CASES:
        x = rng.rand(*x_shape).astype(np.float32)
        f = rng.rand(*f_shape).astype(np.float32)
        gf = _flops(x_shape, f_shape) / 1e6
        number = 2 if args.quick else 5
        ours = gf / conv_gflops(tfteach, x, f, number)
        numpy = gf / best_ms(lambda: np_conv_same(x, f), number)
        theirs = gf / conv_gflops(tf1, x, f, number) if tf1 is not None else None
        print("%-32s %9.1f %9.1f %11s" % (name, ours, numpy, fmt(theirs, "%.1f")))


if __name__ == "__main__":
    main()
