"""Elementwise chains fused on a virtual GPU, accounted as their ops
(runtime/chain_accounting.py, optimizer/elementwise_chains.py).

Each program runs three ways, each on a fresh virtual GPU:
  fused      the chains fused, the accounted loop compiled after two runs: the replay
             of the links' charges (or, where it cannot, the links one by one);
  walked     the same plan walked step by step, each fused chain as its links;
  unfused    `RewriterConfig(remapping=OFF)`: no chain fused at all.
The values must be the same bits and the memory figures (peak, num_allocs, largest,
in use, reserved, live buffers), errors and OOM reports the same; the values are
checked against NumPy too.
"""
import numpy as np
import pytest

import tfteach as tf
from device_helpers import bits, on_a_fresh_gpu, virtual_gpus  # noqa: F401 (fixture)
from tfteach.runtime import chain_accounting, devices
from tfteach.runtime.config import RewriterConfig
from tfteach.runtime.optimizer import elementwise_chains, rewrites_of

WAYS = ("fused", "walked", "unfused")


@pytest.fixture(autouse=True)
def short_chains_fused(monkeypatch):
    """Chains of two links and more fused on the GPU too (by default only those of
    MIN_LINKS_ON_GPU, which pay for their replay): the replay is the same for any."""
    monkeypatch.setattr(elementwise_chains, "MIN_LINKS_ON_GPU", 2)


@pytest.fixture
def replays(monkeypatch):
    """How many fused chains were accounted by the replay (not run link by link)."""
    count = {"done": 0, "refused": 0}
    plain = chain_accounting.replay

    def counted(*args):
        done = plain(*args)
        count["done" if done else "refused"] += 1
        return done
    monkeypatch.setattr(chain_accounting, "replay", counted)
    return count


def three_ways(virtual_gpus, monkeypatch, program, memory_limit=64):
    """{way: (what program(config) returned, memory figures)}."""
    results = {}
    for way in WAYS:
        config = tf.ConfigProto()
        if way == "unfused":
            config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
        results[way] = on_a_fresh_gpu(virtual_gpus, monkeypatch,
                                      lambda config=config: program(config),
                                      compiled=way != "walked", memory_limit=memory_limit)
    return results


def assert_same(results):
    fused = results["fused"]
    for way in ("walked", "unfused"):
        assert results[way][0] == fused[0], way
        assert results[way][1] == fused[1], way


def chained_nodes(sess, fetches, fed):
    return [r.nodes for r in rewrites_of(sess, fetches, fed)
            if r.pass_name == "elementwise_chains"]


def test_the_notes_chain_is_one_step_with_every_value_counted(virtual_gpus, monkeypatch,
                                                               replays):
    start = np.linspace(0, 1, 100, dtype=np.float32)
    expected = start.copy()
    for i in range(50):
        expected = (np.tanh(expected) if i % 3 == 0 else
                    expected * np.float32(1.0001) if i % 3 == 1 else
                    expected + np.float32(0.5))

    def program(config):
        v = tf.placeholder(tf.float32, [100])
        y = v
        for i in range(50):
            y = tf.tanh(y) if i % 3 == 0 else (y * 1.0001 if i % 3 == 1 else y + 0.5)
        sess = tf.Session(config=config)
        runs = [bits([sess.run(y, {v: start})]) for _ in range(6)]
        chains = chained_nodes(sess, [y], [v])
        return runs, [len(nodes) for nodes in chains]
    results = three_ways(virtual_gpus, monkeypatch, program)
    fused = results["fused"]
    assert fused[0][1] == [50] and results["unfused"][0][1] == []
    results["unfused"] = ((results["unfused"][0][0], [50]), results["unfused"][1])
    assert_same(results)
    assert replays["done"] == 4 and replays["refused"] == 0      # runs 3 to 6
    got = np.frombuffer(fused[0][0][-1][0][2], np.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    # the 33 distinct constants live on; the copy of the feed and 50 values a run
    assert fused[1]["num_allocs"] == 33 + 6 * 51


def test_values_a_chain_reads_last_are_freed_where_their_op_read_them(
        virtual_gpus, monkeypatch, replays):
    # A product freed at the chain's head, a fed value's copy in its middle, and another
    # link's operand at its end: each release changes the peak if done at the wrong
    # moment (sizes differ: 64, 32 and 16 KiB).
    rng = np.random.RandomState(3)
    feeds = [rng.randn(128, 64).astype(np.float32), rng.randn(128, 128).astype(np.float32)]

    def program(config):
        x = tf.placeholder(tf.float32, [None, 64])
        a = tf.placeholder(tf.float32, [None, 128])
        w = tf.Variable(tf.random_normal([64, 128], seed=2))
        m = tf.matmul(x, w)
        scale = tf.sqrt(tf.abs(a) + 1.0)
        h = tf.tanh(m)
        h = h * scale                                   # the copy of `a` is gone already
        h = h - 0.5
        h = tf.exp(h) + tf.reduce_mean(m)
        total = tf.reduce_sum(h)
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        runs = [bits(sess.run([h, total], {x: feeds[0], a: feeds[1]})) for _ in range(5)]
        return runs, bits([sess.run(w)])
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert_same(results)
    assert replays["done"] > 0
    (runs, weights) = results["fused"][0]
    w = np.frombuffer(weights[0][2], np.float32).reshape(64, 128)
    m = feeds[0] @ w
    expected = np.exp(np.tanh(m) * np.sqrt(np.abs(feeds[1]) + 1) - 0.5) + m.mean()
    got = np.frombuffer(runs[-1][0][2], np.float32).reshape(128, 128)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_links_with_other_steps_between_them_are_split_where_they_are(
        virtual_gpus, monkeypatch, replays):
    def program(config):
        x = tf.placeholder(tf.float32, [None, 32])
        w = tf.Variable(tf.ones([32, 32]))
        h = tf.tanh(x) * 2.0                         # a chain ...
        m = tf.matmul(x, w)                          # ... a product charged between ...
        h = h + 1.0                                  # ... and the chain goes on
        h = h * 3.0
        out = h + m                                  # (not a link of h: m read once too)
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        feed = {x: np.linspace(-1, 1, 64 * 32, dtype=np.float32).reshape(64, 32)}
        runs = [bits([sess.run(out, feed)]) for _ in range(5)]
        return runs, sorted(len(n) for n in chained_nodes(sess, [out], [x]))
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert results["fused"][0][1] == [2, 3]          # Tanh+mul | add+mul+add
    results["unfused"] = ((results["unfused"][0][0], [2, 3]), results["unfused"][1])
    assert_same(results)
    assert replays["done"] > 0


def test_a_link_that_broadcasts_to_a_bigger_value_runs_the_links_one_by_one(
        virtual_gpus, monkeypatch, replays):
    def program(config):
        # (a constant row: a fed one's copy, made just before `* row`, would split the
        # chain there)
        x = tf.placeholder(tf.float32, [None, 1])
        h = tf.tanh(x) * tf.constant(ROW) + 1.0       # [n, 1] becomes [n, 50] at `* row`
        sess = tf.Session(config=config)
        return ([bits([sess.run(h, {x: COLUMN})]) for _ in range(5)],
                [len(n) for n in chained_nodes(sess, [h], [x])])
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert results["fused"][0][1] == [3]
    results["unfused"] = ((results["unfused"][0][0], [3]), results["unfused"][1])
    assert_same(results)
    assert replays["done"] == 0 and replays["refused"] == 3
    got = np.frombuffer(results["fused"][0][0][-1][0][2], np.float32).reshape(20, 50)
    np.testing.assert_allclose(got, np.tanh(COLUMN) * ROW + 1.0, rtol=1e-6)


ROW = np.linspace(0, 2, 50, dtype=np.float32).reshape(1, 50)
COLUMN = np.arange(20, dtype=np.float32).reshape(20, 1) / 20


def test_allow_growth_grows_the_reservation_as_the_ops_would(virtual_gpus, monkeypatch,
                                                               replays):
    # 352 KiB values, x read again after the chain: at the chain's first op three are
    # live, over the first 1 MiB region; the reservation grows there in the first runs,
    # which run the links one by one; later runs replay.
    def program(config):
        config.gpu_options.allow_growth = True
        x = tf.placeholder(tf.float32, [None, 300])
        h = tf.sigmoid(x)                            # not a link: the chain starts after
        h = tf.tanh(h) * 2.0 - tf.ones([300]) * 0.5
        h = h + 1.0
        again = x * 3.0
        sess = tf.Session(config=config)
        feed = np.linspace(-3, 3, 90000, dtype=np.float32).reshape(300, 300)
        runs = []
        for _ in range(6):
            runs.append(bits(sess.run([h, again], {x: feed})))
            runs.append(tf.config.memory_stats()["bytes_reserved"])
        return runs
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert_same(results)
    assert results["fused"][1]["bytes_reserved"] > 1 << 20
    assert replays["done"] > 0


def test_an_oom_inside_a_fused_chain_names_its_op_with_the_live_buffers(
        virtual_gpus, monkeypatch, replays):
    # x (4 MiB) is read again after the chain: at the chain's second op three 4 MiB
    # values are live, over the 10 MiB card. The error names that op, `mul`.
    def program(config):
        x = tf.placeholder(tf.float32, [None], name="x")
        h = tf.tanh(x) * 2.0 + 1.0
        again = x * 3.0
        sess = tf.Session(config=config)
        out = []
        for _ in range(4):
            out.append(bits(sess.run([h, again], {x: np.ones(10, np.float32)})))
        before = tf.config.memory_stats()["bytes_in_use"]
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            sess.run([h, again], {x: np.ones(1 << 20, np.float32)},
                     options=tf.RunOptions(report_tensor_allocations_upon_oom=True))
        out.append((str(info.value), info.value.op.name))
        assert tf.config.memory_stats()["bytes_in_use"] == before
        out.append(bits(sess.run([h, again], {x: np.ones(10, np.float32)})))
        return out
    results = three_ways(virtual_gpus, monkeypatch, program, memory_limit=10)
    assert_same(results)
    text, op = results["fused"][0][4]
    assert op == "mul"
    assert text.startswith("OOM when allocating tensor with shape[1048576] and type float")
    assert "4.00MiB from Tanh" in text and "4.00MiB from x/_copy_to_GPU:0" in text
    assert replays["refused"] >= 1 and replays["done"] >= 2


def test_the_peak_is_where_two_of_the_chains_values_were_live(virtual_gpus, monkeypatch,
                                                             replays):
    # x's copy is read again after the chain, and `scale` is read last by the chain's
    # second op: while its value is made, x, scale and the first two ops' values are
    # live, four 4000-byte values (4096 on the card) and the constant 1.0, though the
    # fused chain never holds two values of its own (later, scale is gone). The peak of
    # the first runs (walked, before the loop is compiled) is forgotten: only the
    # replays' is measured.
    def program(config):
        x = tf.placeholder(tf.float32, [1000])
        y = tf.placeholder(tf.float32, [1000])
        scale = tf.abs(y)
        h = tf.tanh(x) * scale + 1.0
        total = tf.reduce_sum(x)
        sess = tf.Session(config=config)
        feed = {x: np.linspace(-1, 1, 1000, dtype=np.float32),
                y: np.linspace(3, -2, 1000, dtype=np.float32)}
        runs = [bits(sess.run([h, total], feed)) for _ in range(2)]
        allocator = [d for d in devices.local_devices() if d.device_type == "GPU"][0].allocator
        allocator.peak_bytes_in_use = allocator.bytes_in_use
        runs += [bits(sess.run([h, total], feed)) for _ in range(3)]
        return runs, feed
    results = three_ways(virtual_gpus, monkeypatch, program)
    feed = list(results["fused"][0][1].values())
    for way in WAYS:
        results[way] = (results[way][0][0], results[way][1])
    assert_same(results)
    assert replays["done"] == 3
    assert results["fused"][1]["peak_bytes_in_use"] == 4 * 4096 + 256
    got = np.frombuffer(results["fused"][0][-1][0][2], np.float32)
    np.testing.assert_allclose(got, np.tanh(feed[0]) * np.abs(feed[1]) + 1.0, rtol=1e-6)


def test_a_chain_placed_on_the_cpu_of_a_gpu_plan_is_fused_without_accounting(
        virtual_gpus, monkeypatch, replays):
    def program(config):
        x = tf.placeholder(tf.float32, [None, 8])
        with tf.device("/cpu:0"):
            h = tf.tanh(x) * 2.0 + 1.0
        out = tf.exp(h) * 0.5 - 1.0                  # on the GPU: a chain there too
        sess = tf.Session(config=config)
        feed = {x: np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)}
        runs = [bits([sess.run(out, feed)]) for _ in range(5)]
        return runs, sorted(len(n) for n in chained_nodes(sess, [out], [x]))
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert results["fused"][0][1] == [3, 3]
    results["unfused"] = ((results["unfused"][0][0], [3, 3]), results["unfused"][1])
    assert_same(results)
    assert replays["done"] == 3                      # the GPU's chain only
    x = np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)
    got = np.frombuffer(results["fused"][0][0][-1][0][2], np.float32).reshape(4, 8)
    np.testing.assert_allclose(got, np.exp(np.tanh(x) * 2 + 1) * 0.5 - 1, rtol=1e-6)


def test_a_chain_in_a_loop_body_and_its_gradient(virtual_gpus, monkeypatch, replays):
    # The body's chain is fused in the loop's sub-plan and in each specialised copy
    # (loop_specialise.py renames the slots it reads); its gradient's chain too.
    start = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)

    def program(config):
        x = tf.placeholder(tf.float32, [None, 6])
        w = tf.Variable(tf.fill([6], 0.9))

        def body(i, h):
            return i + 1, tf.tanh(h * w) * 0.5 + 0.1
        _, h = tf.while_loop(lambda i, h: i < 5, body, [tf.constant(0), x])
        loss = tf.reduce_sum(tf.square(h))
        grad = tf.gradients(loss, w)[0]
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        runs = [bits(sess.run([h, grad, train], {x: start})[:2]) for _ in range(5)]
        return runs, bits([sess.run(w)])
    results = three_ways(virtual_gpus, monkeypatch, program)
    assert_same(results)
    assert replays["done"] > 0
    # independently: the first run's h, from NumPy
    h = start.copy()
    for _ in range(5):
        h = np.tanh(h * np.float32(0.9)) * np.float32(0.5) + np.float32(0.1)
    got = np.frombuffer(results["fused"][0][0][0][0][2], np.float32).reshape(4, 6)
    np.testing.assert_allclose(got, h, rtol=1e-6)


def test_by_default_a_gpu_fuses_only_chains_long_enough_to_pay(virtual_gpus, monkeypatch):
    monkeypatch.setattr(elementwise_chains, "MIN_LINKS_ON_GPU", 6)
    virtual_gpus(1, memory_limit=64)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        short = tf.tanh(x) * 2.0 + 1.0 - 0.5 + 3.0                  # 5 ops
        long = tf.tanh(x) * 2.0 + 1.0 - 0.5 + 3.0 + 4.0              # 6 ops
        with tf.device("/cpu:0"):
            on_cpu = tf.tanh(x) * 2.0                                # the CPU: from 2
        sess = tf.Session()
        feed = {x: np.ones(3, np.float32)}
        for _ in range(3):
            sess.run([short, long, on_cpu], feed)
        assert sorted(len(n) for n in chained_nodes(sess, [short, long, on_cpu], [x])) == \
            [2, 6]


UNARY = (tf.tanh, tf.abs, tf.square, tf.negative, tf.exp, lambda v: tf.sqrt(tf.abs(v)))
BINARY = (tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum)


def random_chain_program(seed):
    """A random program of elementwise chains on [4, 5] values: operands that are
    constants (scalars, rows), values made before the chain and read again after it or
    not, fed values (whose copies split a chain where they are made), and a value that
    broadcasts the chain to [3, 4, 5] (its links then run one by one)."""
    def program(config):
        rng = np.random.RandomState(seed)       # the same draws each way
        x = tf.placeholder(tf.float32, [4, 5])
        fed = tf.placeholder(tf.float32, [4, 5])
        made = [tf.tanh(x) * 0.5, tf.abs(fed) + 1.0]
        later = []
        h = x * 0.25
        for _ in range(rng.randint(6, 14)):
            if rng.rand() < 0.4:
                h = UNARY[rng.randint(len(UNARY))](h)
                continue
            kind = rng.randint(5)
            other = (tf.constant(np.float32(rng.uniform(-1, 1))) if kind == 0 else
                     tf.constant(rng.uniform(-1, 1, (1, 5)).astype(np.float32)) if kind == 1
                     else made[rng.randint(len(made))] if kind == 2 else
                     fed if kind == 3 else
                     tf.constant(rng.uniform(-1, 1, (3, 1, 1)).astype(np.float32))
                     if rng.rand() < 0.3 else x)
            op = BINARY[rng.randint(len(BINARY))]
            h = op(h, other) if rng.rand() < 0.5 else op(other, h)
            if rng.rand() < 0.2:
                later.append(made[rng.randint(len(made))] * 2.0)
        total = tf.reduce_sum(h) + tf.add_n([tf.reduce_sum(v) for v in later] or [0.0])
        sess = tf.Session(config=config)
        feed = {x: rng_values(seed, 0), fed: rng_values(seed, 1)}
        return [bits(sess.run([h, total], feed)) for _ in range(5)]
    return program


def rng_values(seed, k):
    return np.random.RandomState(1000 * seed + k).uniform(-2, 2, (4, 5)).astype(np.float32)


@pytest.mark.parametrize("seed", range(16))
def test_random_chains_account_as_their_ops(virtual_gpus, monkeypatch, seed):
    assert_same(three_ways(virtual_gpus, monkeypatch, random_chain_program(seed)))


def test_the_random_chains_are_replayed_and_run_one_by_one(virtual_gpus, monkeypatch,
                                                           replays):
    # Among the random programs, chains are replayed and others refused (a broadcast
    # to [3, 4, 5] in a link): both ways of accounting are the ones compared above.
    for seed in range(16):
        three_ways(virtual_gpus, monkeypatch, random_chain_program(seed))
    assert replays["done"] >= 16 and replays["refused"] >= 3, replays


def test_a_conv_layers_bias_relu_and_pool_gradient_fused_on_a_gpu(virtual_gpus, monkeypatch,
                                                                   replays):
    # fusion.py's 4 and 5 on the virtual GPU: relu(conv + b) one pass, the relu's
    # gradient written with the max pool's; their ops' charges replayed. Against the
    # walk (their ops one by one) and against the plan without those two fusions.
    from tfteach.runtime import fusion
    rng = np.random.RandomState(7)
    images = rng.rand(8, 12, 12, 1).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 8)]

    def program(config):
        x = tf.placeholder(tf.float32, [None, 12, 12, 1])
        y = tf.placeholder(tf.float32, [None, 10])
        f1 = tf.Variable(tf.truncated_normal([3, 3, 1, 4], stddev=0.3, seed=1))
        b1 = tf.Variable(tf.fill([4], 0.1))
        c = tf.nn.conv2d(x, f1, [1, 1, 1, 1], "SAME")
        side = tf.reduce_mean(x, axis=[1, 2, 3]) * 2.0      # charged between conv and add:
        h = tf.nn.relu(c + b1)                              # this layer stays unfused
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        f2 = tf.Variable(tf.truncated_normal([3, 3, 4, 6], stddev=0.3, seed=2))
        b2 = tf.Variable(tf.fill([6], 0.1))
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, f2, [1, 1, 1, 1], "SAME"), b2))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        w = tf.Variable(tf.truncated_normal([3 * 3 * 6, 10], stddev=0.3, seed=3))
        logits = tf.matmul(tf.reshape(h, [-1, 3 * 3 * 6]), w) + side[:, None]
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y,
                                                                         logits=logits))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer())
        runs = [bits(sess.run([loss, train], {x: images, y: labels})[:1]) for _ in range(5)]
        return runs, bits(sess.run([f1, b1, f2, b2, w]))
    results = three_ways(virtual_gpus, monkeypatch, program)
    done = dict(replays)
    monkeypatch.setattr(fusion, "conv_bias_relus", lambda steps, *args, **kwargs: steps)
    monkeypatch.setattr(fusion, "relu_grads_into_max_pool_grads",
                        lambda steps, *args, **kwargs: steps)
    results["unfused"] = three_ways(virtual_gpus, monkeypatch, program)["fused"]
    assert_same(results)
    # 3 fusions (layer 2's bias and relu, both pools' gradients), runs 3 to 5, in the
    # "fused" and "remapping off" ways (remapping turns the optimizer's fusions off,
    # not fusion.py's)
    assert done["done"] == 3 * 3 * 2 and done["refused"] == 0
    losses = [np.frombuffer(run[0][2], np.float32)[0] for run in results["fused"][0][0]]
    assert losses[-1] < losses[0]                            # it trains
