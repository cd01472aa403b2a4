"""Runs of exact arithmetic in an elementwise chain compiled into one Numba kernel
(runtime/optimizer/fused_arithmetic.py, docs/optimizer.md pass 5): the same bits as
NumPy's ufuncs one op at a time, and as the unoptimized plan; compiled only once a chain
has run for a while, shared by sessions, safe from two threads; errors, switches and
views as before."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings

import tfteach as tf
from tfteach.runtime import optimizer
from tfteach.runtime.config import ConfigProto, GraphOptions, RewriterConfig
from tfteach.runtime.optimizer import elementwise_chains, fused_arithmetic
from tests.test_optimizer import (OFF, assert_same_bits, build_program, chain_graph,
                                  elementwise_programs, run_both, same_bits)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def kernel_sources_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """The kernels these tests compile keep their sources (and Numba's cache) out of
    the user's ~/.cache."""
    monkeypatch.setattr(fused_arithmetic, "CACHE_DIR",
                        str(tmp_path_factory.getbasetemp() / "fused_arithmetic"))


@pytest.fixture
def compile_at_once(monkeypatch):
    """Chains compile their kernels on their first run (not after 0.05 s of runs)."""
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.0)


@pytest.fixture(autouse=True)
def kernels_for_small_values(monkeypatch):
    """These tests are about the kernels: they run on the small values used here too (by
    default a short run reading operands calls NumPy's ufuncs below SMALL_VALUE
    elements: test_a_short_run_on_a_small_value_runs_numpys_ufuncs)."""
    monkeypatch.setattr(fused_arithmetic, "SMALL_VALUE", 0)


# -- the kernels against NumPy, op by op ---------------------------------------------------
BINARY = {"Add": np.add, "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
          "RealDiv": np.true_divide, "Maximum": np.maximum, "Minimum": np.minimum}
UNARY = {"Neg": np.negative, "Abs": np.absolute, "Square": np.square, "Sqrt": np.sqrt}
LOOPED = dict(fused_arithmetic.LOOP_OPS)     # NumPy's own loops, called from the kernel


def special_values(dtype, rng, n, nan=True):
    """Random values mixed with the awkward ones: signed zeros, infinities, NaN (when
    `nan`), subnormals, the largest and smallest normals, values whose products overflow."""
    info = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, info.tiny, -info.tiny, info.tiny / 8,
               -info.tiny * 3 / 4, info.max, -info.max, info.eps, 1.0, -1.0, 0.5,
               float(np.sqrt(info.max)) * 2]
    if nan:
        special.append(np.nan)
    values = rng.standard_normal(n) * 10.0 ** rng.randint(-3, 4, n)
    pick = rng.rand(n) < 0.4
    values[pick] = rng.choice(special, pick.sum())
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def random_program(rng, dtype, n):
    """A run's program (as elementwise_chains builds it), its inputs, and what NumPy
    gives calling the ufuncs one at a time. The run's head reads two operands; each
    later link the chain's value and maybe one operand (a whole array, one value
    broadcast, or a constant). Operands hold no NaN: an op of two NaNs may return
    either (the documented exception), so none is made."""
    ops, operands, constants, kinds = [], [], [], ""

    def operand():
        choice = rng.randint(3)
        if choice == 2:
            constants.append(dtype(rng.choice([0.0, -0.0, 1.0, -1.0, 3.0, 1e-30, -np.inf])))
            return ("c", len(constants) - 1), constants[-1]
        nonlocal kinds
        value = special_values(dtype, rng, n if choice == 0 else 1, nan=False)
        operands.append(value if choice == 0 else value.reshape(()))
        kinds += "f" if choice == 0 else "s"
        return len(operands) - 1, operands[-1]

    head = special_values(dtype, rng, n)
    operands.append(head)
    kinds += "f"
    name = rng.choice(sorted(BINARY))
    ref, other = operand()
    ops.append((name, (0, ref)))
    with np.errstate(all="ignore"):
        value = BINARY[name](head, other)
        for _ in range(rng.randint(1, 8)):
            if rng.rand() < 0.4:
                name = rng.choice(sorted(UNARY) + sorted(LOOPED))
                ops.append((name, (-1,)))
                value = {**UNARY, **LOOPED}[name](value)
                continue
            name = rng.choice(sorted(BINARY))
            ref, other = operand()
            first = rng.rand() < 0.5
            ops.append((name, (-1, ref) if first else (ref, -1)))
            value = BINARY[name](value, other) if first else BINARY[name](other, value)
    return tuple(ops), operands, constants, kinds, value


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_kernels_give_numpys_bits(dtype):
    rng = np.random.RandomState(20 if dtype is np.float32 else 64)
    for _ in range(12):
        n = rng.choice([1, 7, 100, 2500])          # 2500: more than one block of 1024
        program, operands, constants, kinds, expected = random_program(rng, dtype, n)
        picks = tuple(range(len(operands)))
        run = fused_arithmetic.FusedRun(program, picks, constants, dtype)
        got = run.run(None, operands)
        assert run.kernels == {kinds: fused_arithmetic.kernel_for(program, kinds, dtype)}
        assert got is not None and got.dtype == dtype and got.shape == (n,)
        assert same_bits(got, expected), (program, kinds)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(BINARY) + sorted(UNARY))
def test_each_op_gives_numpys_bits_on_special_values(name, dtype):
    # Every pair of special values (NaN in one operand at a time), each operand order.
    rng = np.random.RandomState(1)
    values = np.unique(special_values(dtype, rng, 400).view(
        np.uint32 if dtype is np.float32 else np.uint64)).view(dtype)
    a, b = np.meshgrid(values, values[~np.isnan(values)])
    a, b = a.ravel(), b.ravel()
    with np.errstate(all="ignore"):
        if name in UNARY:
            # value = a * 1 (the head), then the op: a link reading the chain's value
            program = (("Mul", (0, ("c", 0))), (name, (-1,)))
            expected = UNARY[name](a * dtype(1))
            got = fused_arithmetic.FusedRun(program, (0,), [1.0], dtype).run(None, [a])
            assert same_bits(got, expected)
            return
        for order in [(-1, 1), (1, -1)]:
            program = (("Mul", (0, ("c", 0))), (name, order))
            value = a * dtype(1)
            expected = BINARY[name](*((value, b) if order[0] == -1 else (b, value)))
            got = fused_arithmetic.FusedRun(program, (0, 1), [1.0], dtype).run(None, [a, b])
            assert same_bits(got, expected), order


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(LOOPED))
def test_each_numpy_loop_gives_the_ufuncs_bits_from_an_operand_and_in_place(name, dtype):
    # The run's head calls the loop from its operand into a new array, a later link on
    # the chain's value in place; 2500 elements: two blocks of 1024 and a shorter one.
    rng = np.random.RandomState(3)
    ufunc = LOOPED[name]
    program = ((name, (0,)), ("Mul", (-1, ("c", 0))), (name, (-1,)))
    for n in (1, 100, 2500):
        a = special_values(dtype, rng, n)
        with np.errstate(all="ignore"):
            expected = ufunc(ufunc(a) * dtype(0.5))
        run = fused_arithmetic.FusedRun(program, (0,), [0.5], dtype)
        got = run.run(None, [a])
        assert run.kernels["f"] is not None and run.fixed[1].shape == (1, 3)
        assert same_bits(got, expected), n


def test_without_a_numpy_loop_safe_in_pieces_the_links_run_one_by_one(compile_at_once,
                                                                       monkeypatch):
    # numpy_loops.chunk_safe says whether the loop on blocks gives the ufunc's bits on
    # the whole array, on this CPU; where it does not, a run calling it gets no kernel.
    from tfteach.kernels.cpu import numpy_loops
    monkeypatch.setattr(numpy_loops, "chunk_safe", lambda ufunc, dtype: False)
    graph, x, y = bench_chain("tanh")
    value = np.linspace(-1, 1, 100).astype(np.float32)
    with tf.Session(graph=graph) as sess:
        for _ in range(2):
            assert same_bits(sess.run(y, {x: value}), numpy_chain("tanh", value))
        step, = sess._plan((y,), (x,), ()).fast_steps
        run, = [run for _, run, _ in step.kernel.fused_runs.values()]
        assert run.kernels == {"f": None}


def test_no_fused_multiply_add():
    # a * a + c rounds twice in NumPy; an FMA would round once and keep the low bits.
    for dtype, e in [(np.float32, 12), (np.float64, 27)]:
        a = np.full(64, 1 + 2.0 ** -e, dtype)
        program = (("Mul", (0, 0)), ("AddV2", (-1, ("c", 0))))
        got = fused_arithmetic.FusedRun(program, (0,), [-1.0], dtype).run(None, [a])
        assert same_bits(got, np.full(64, 2.0 ** (1 - e), dtype))       # not + 2**-2e


def test_negation_of_a_made_nan_keeps_numpys_sign():
    # -(inf / inf): NumPy negates the NaN the division made. One expression per element
    # would let LLVM compute (-inf) / inf instead: a NaN of the other sign.
    x = np.array([np.inf, -np.inf, 0.0, 1.0] * 4, np.float32)
    program = (("RealDiv", (0, 0)), ("Neg", (-1,)))
    got = fused_arithmetic.FusedRun(program, (0,), [], np.float32).run(None, [x])
    with np.errstate(all="ignore"):
        assert same_bits(got, np.negative(x / x))


# -- through Sessions: the same bits as the unoptimized plan -------------------------------
@settings(max_examples=40, deadline=None)
@given(elementwise_programs())
def test_random_elementwise_programs_give_the_same_bits_with_kernels(program):
    # tests/test_optimizer.py's programs, with each chain's kernels compiled at once.
    old = fused_arithmetic.COMPILE_AFTER_SECONDS
    fused_arithmetic.COMPILE_AFTER_SECONDS = 0.0
    try:
        dtype, shape, static, value, ops = program
        graph = tf.Graph()
        with graph.as_default():
            x, fetches = build_program(dtype, shape, static, ops)
            fetches += tf.gradients(tf.reduce_sum(fetches[0]), [x])
        on, off = run_both(graph, fetches, {x: value}, runs=2)
    finally:
        fused_arithmetic.COMPILE_AFTER_SECONDS = old
    assert_same_bits(on, off, repr(ops))


def two_input_graph(shape_w, dtype=tf.float32):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(dtype, [4, 3])
        w = tf.placeholder(dtype, shape_w)
        y = tf.maximum((x * w - 0.5) / w, -2.0)
        z = tf.square(tf.exp(y) + w) - x
    return graph, x, w, z


@pytest.mark.parametrize("shape_w", [[4, 3], [], [1, 1], [3], [4, 1]])
def test_fed_operands_whole_one_value_or_broadcast_give_the_same_bits(shape_w,
                                                                      compile_at_once):
    rng = np.random.RandomState(5)
    graph, x, w, z = two_input_graph(shape_w)
    xs = special_values(np.float32, rng, 12).reshape(4, 3)
    ws = special_values(np.float32, rng, int(np.prod(shape_w)), nan=False).reshape(shape_w)
    for feed_x in (xs, np.asfortranarray(xs)):
        on, off = run_both(graph, [z], {x: feed_x, w: ws}, runs=2)
        assert_same_bits(on, off, str(shape_w))
    done = [r.result for r in optimizer.rewrites_of(tf.Session(graph=graph), [z], [x, w])
            if r.pass_name == "elementwise_chains"]
    # Exp is NumPy's loop called from the kernel (LOOP_OPS): one kernel for the chain
    assert done == ["one step: Numba[Mul -> Sub -> RealDiv -> Maximum -> Exp -> AddV2 -> "
                    "Square -> Sub]"]


def test_float16_chains_run_their_ufuncs(compile_at_once):
    graph, x, w, z = two_input_graph([4, 3], tf.float16)
    done = [r.result for r in optimizer.rewrites_of(tf.Session(graph=graph), [z], [x, w])
            if r.pass_name == "elementwise_chains"]
    assert done == ["one step: Mul -> Sub -> RealDiv -> Maximum -> Exp -> AddV2 -> Square -> Sub"]
    value = np.linspace(-3, 3, 12).reshape(4, 3).astype(np.float16)
    on, off = run_both(graph, [z], {x: value, w: value[::-1].copy()}, runs=2)
    assert_same_bits(on, off)


# -- the bench's chains (bench/session_overhead.py) -----------------------------------------
def bench_chain(kind):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [100])
        y = x
        for i in range(50):
            if kind == "tanh":     # chain_50_tanh: tanh, * and + in turn, 50 ops
                y = tf.tanh(y) if i % 3 == 0 else (y * 1.0001 if i % 3 == 1 else y + 0.5)
            else:                  # chain_50: *, + and -, 75 ops
                y = y * 1.0001 + 0.5 if i % 2 else y - 0.25
    return graph, x, y


def numpy_chain(kind, value):
    one, half, quarter = np.float32(1.0001), np.float32(0.5), np.float32(0.25)
    for i in range(50):
        if kind == "tanh":
            value = np.tanh(value) if i % 3 == 0 else (value * one if i % 3 == 1 else value + half)
        else:
            value = value * one + half if i % 2 else value - quarter
    return value


@pytest.mark.parametrize("kind", ["tanh", "arithmetic"])
def test_the_benchs_chains_compile_after_a_while_and_keep_their_bits(kind, monkeypatch):
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", 0.02)
    graph, x, y = bench_chain(kind)
    value = np.linspace(-1, 1, 100).astype(np.float32)
    expected = numpy_chain(kind, value)
    with tf.Session(graph=graph) as sess:
        done = optimizer.rewrites_of(sess, [y], [x])
        assert [r.pass_name for r in done] == ["elementwise_chains"]
        # one kernel each: the tanh chain's Tanh links call NumPy's loop from it
        if kind == "tanh":
            assert done[0].result == "one step: Numba[%s]" % " -> ".join(
                ["Tanh", "Mul", "AddV2"] * 16 + ["Tanh", "Mul"])
        else:
            assert done[0].result == "one step: Numba[%s]" % " -> ".join(
                ["Sub"] + ["Mul", "AddV2", "Sub"] * 24 + ["Mul", "AddV2"])
        step, = sess._plan((y,), (x,), ()).fast_steps
        runs = [run for _, run, _ in step.kernel.fused_runs.values()]
        assert same_bits(sess.run(y, {x: value}), expected)
        assert not any(run.kernels for run in runs)          # one run: nothing compiled
        for _ in range(10000):
            got = sess.run(y, {x: value})
            if step.kernel.heat.hot:
                break
        assert step.kernel.heat.hot
        assert same_bits(sess.run(y, {x: value}), expected)
        assert len(runs) == 1 and runs[0].kernels and None not in runs[0].kernels.values()
        assert same_bits(got, expected)


def test_the_notes_chain_runs_one_kernel_with_numpys_bits(compile_at_once):
    graph, x, y = chain_graph()          # tanh(y) * 0.5 + 0.1, 50 times: 150 ops
    value = np.linspace(-2, 2, 100).astype(np.float32)
    expected = value
    for _ in range(50):
        expected = np.tanh(expected) * np.float32(0.5) + np.float32(0.1)
    with tf.Session(graph=graph) as sess:
        done, = optimizer.rewrites_of(sess, [y], [x])
        assert done.result == "one step: Numba[%s]" % " -> ".join(["Tanh", "Mul", "AddV2"] * 50)
        assert same_bits(sess.run(y, {x: value}), expected)
        step, = sess._plan((y,), (x,), ()).fast_steps
        run, = [run for _, run, _ in step.kernel.fused_runs.values()]
        assert run.kernels["f"] is not None and len(run.fixed) == 2     # with its loops
    on, off = run_both(graph, [y], {x: value}, runs=2)
    assert_same_bits(on, off)


def test_sessions_share_a_kernel_and_two_threads_compile_it_once(compile_at_once, monkeypatch):
    made = []
    real_compile = fused_arithmetic._compile

    def counted(*args):
        made.append(args)
        return real_compile(*args)
    monkeypatch.setattr(fused_arithmetic, "_compile", counted)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float64, [None])
        # an op sequence no other test builds, so the shared cache does not hold it yet
        y = tf.sqrt(tf.abs(x * 7.25 - 3.5) + 0.125) / 1.75 - tf.constant(4.5, tf.float64)
    sessions = [tf.Session(graph=graph) for _ in range(4)]
    value = np.linspace(-5, 5, 4000)
    barrier = threading.Barrier(len(sessions))
    results = [None] * len(sessions)

    def work(i):
        barrier.wait()
        results[i] = sessions[i].run(y, {x: value})
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with np.errstate(all="ignore"):
        expected = np.sqrt(np.abs(value * 7.25 - 3.5) + 0.125) / 1.75 - 4.5
    assert all(same_bits(r, expected) for r in results)
    assert len(made) == 1
    kernels = [sess._plan((y,), (x,), ()).fast_steps[-1].kernel.fused_runs[0][1].kernels
               for sess in sessions]
    assert all(k == kernels[0] and len(k) == 1 for k in kernels)


def test_threads_of_one_session_running_a_run_with_numpy_loops_first_get_its_bits(
        compile_at_once):
    # The first threads to run a run take its kernel and its loops' addresses together
    # (FusedRun.fixed is set before the kernel is published).
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float64, [None])
        y = tf.log1p(tf.exp(tf.tanh(x * 0.625) * 2.5) - 0.75)
    sess = tf.Session(graph=graph)
    value = np.linspace(-6, 6, 5000)
    with np.errstate(all="ignore"):
        expected = np.log1p(np.exp(np.tanh(value * 0.625) * 2.5) - 0.75)
    barrier = threading.Barrier(4)
    results = [None] * 4

    def work(i):
        barrier.wait()
        results[i] = [sess.run(y, {x: value}) for _ in range(3)]
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None and all(same_bits(v, expected) for v in r) for r in results)
    run, = [run for _, run, _ in sess._plan((y,), (x,), ()).fast_steps[-1].kernel
            .fused_runs.values()]
    assert run.kernels["f"] is not None and len(run.fixed) == 2


# -- errors, switches, views ---------------------------------------------------------------
def test_a_failing_link_of_a_fused_run_names_its_own_op(compile_at_once):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None])
        w = tf.placeholder(tf.float32, [None])
        y = tf.tanh((x * 2.0 - 1.0) * w + 3.0)
    with tf.Session(graph=graph) as sess:
        good = {x: np.ones(3, np.float32), w: np.ones(3, np.float32)}
        assert same_bits(sess.run(y, good), np.tanh(np.ones(3, np.float32) * 4))
        assert sess._plan((y,), (x, w), ()).fast_steps[-1].kernel.fused_runs[0][1].kernels
        for config in (None, OFF):
            with tf.Session(graph=graph, config=config) as s:
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=r"Incompatible shapes: \[3\] vs. \[2\]") as info:
                    s.run(y, {x: np.ones(3, np.float32), w: np.ones(2, np.float32)})
                assert info.value.op.name == "mul_1"


def test_remapping_off_runs_no_chain_and_the_module_flag_no_kernel(compile_at_once,
                                                                   monkeypatch):
    graph, x, y = bench_chain("arithmetic")
    off = ConfigProto(graph_options=GraphOptions(
        rewrite_options=RewriterConfig(remapping=RewriterConfig.OFF)))
    with tf.Session(graph=graph, config=off) as sess:
        assert not [r for r in optimizer.rewrites_of(sess, [y], [x])
                    if r.pass_name == "elementwise_chains"]
        assert len(sess._plan((y,), (x,), ()).fast_steps) == 75
    monkeypatch.setattr(fused_arithmetic, "ENABLED", False)
    with tf.Session(graph=graph) as sess:
        done, = optimizer.rewrites_of(sess, [y], [x])
        assert "Numba" not in done.result and done.result.startswith("one step: Sub -> Mul")
        assert sess._plan((y,), (x,), ()).fast_steps[0].kernel.fused_runs == {}


def test_the_optimized_view_names_the_kernels():
    from tfteach.notebook import graph_export
    from tfteach.notebook.run_recorder import RunRecorder
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        z = tf.sin(tf.exp(x * 2.0 + 1.0) - 3.0 * x, name="z")
        sess = tf.Session()
        with RunRecorder(optimized=True) as recorder:
            sess.run(z, {x: np.ones((3, 4), np.float32)})
    export = graph_export.export_graph(graph, recorder.runs)
    chains = [r["result"] for r in export["runs"][0]["optimized"]
              if r["pass"] == "elementwise_chains"]
    assert chains == ["one step: Numba[Mul -> AddV2 -> Exp -> Sub -> Sin]"]


def test_a_process_loads_numba_only_when_a_chain_compiles(tmp_path):
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "import tfteach as tf\n"
        "from tfteach.runtime.optimizer import fused_arithmetic\n"
        "fused_arithmetic.SMALL_VALUE = 0\n"             # the kernel for 100 floats too
        "x = tf.placeholder(tf.float32, [100])\n"
        "y = (x * 2.0 + 1.0) * 3.0\n"
        "sess = tf.Session()\n"
        "for _ in range(20):\n"
        "    sess.run(y, {x: np.ones(100, np.float32)})\n"
        "before = 'numba' in sys.modules\n"
        "fused_arithmetic.COMPILE_AFTER_SECONDS = 0.0\n"
        "got = sess.run(y, {x: np.ones(100, np.float32)})\n"
        "print(json.dumps([before, 'numba' in sys.modules, got.tolist()[:2]]))\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path))     # the kernel's source: not in ~/.cache
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [False, True, [9.0, 9.0]]
    assert os.listdir(str(tmp_path / "tfteach" / "fused_arithmetic"))


@pytest.mark.parametrize("middle", ["Sub", "Tanh"])
def test_the_next_process_loads_a_kernel_from_numbas_cache(tmp_path, middle):
    # The kernel's source goes into a file named by its hash, with Numba's cache beside
    # it: a second process compiling the same run loads it (a cache hit, no compile).
    # A kernel calling NumPy's tanh loop gets the loop's address in each process.
    link = "('Sub', (('c', 1), -1))" if middle == "Sub" else "('Tanh', (-1,))"
    code = (
        "import json, sys\n"
        "import numpy as np\n"
        "from tfteach.runtime.optimizer import fused_arithmetic as fa\n"
        "fa.CACHE_DIR = sys.argv[1]\n"
        "fa.SMALL_VALUE = 0\n"                           # the kernel for 4 floats too
        "program = (('Mul', (0, ('c', 0))), %s, ('Abs', (-1,)))\n"
        "run = fa.FusedRun(program, (0,), [2.5, 1.0], np.float64)\n"
        "got = run.run(None, [np.arange(4.0)])\n"
        "kernel, = run.kernels.values()\n"
        "print(json.dumps([got.tolist(), sum(kernel.stats.cache_hits.values())]))\n" % link)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    got = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                             text=True, env=env, cwd=ROOT, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        got.append(json.loads(out.stdout.strip().splitlines()[-1]))
    x = np.arange(4.0) * 2.5
    expected = (np.abs(1.0 - x) if middle == "Sub" else np.abs(np.tanh(x))).tolist()
    assert got == [[expected, 0], [expected, 1]]
    source, = [name for name in os.listdir(str(tmp_path)) if name.endswith(".py")]
    assert source.startswith("fused_Mul_%s_Abs_" % middle)


def test_without_a_writable_cache_folder_kernels_compile_in_memory(monkeypatch, tmp_path):
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setattr(fused_arithmetic, "CACHE_DIR", str(blocked / "fused"))
    program = (("Mul", (0, ("c", 0))), ("Neg", (-1,)), ("Square", (-1,)))
    run = fused_arithmetic.FusedRun(program, (0,), [3.0], np.float32)
    x = np.array([1.0, -2.0, 0.5], np.float32)
    assert same_bits(run.run(None, [x]), np.square(np.negative(x * np.float32(3))))
    assert all(kernel is not None for kernel in run.kernels.values())


def test_a_chain_compiles_only_once_its_runs_paid_for_the_kernels(monkeypatch):
    # The rent-or-buy rule: by default a chain waits until its unfused runs took about
    # as long as compiling would; a student's few thousand runs never compile.
    monkeypatch.setattr(fused_arithmetic, "COMPILE_AFTER_SECONDS", None)
    monkeypatch.setattr(fused_arithmetic, "_KERNELS", {})
    program = (("Mul", (-1, ("c", 0))), ("AddV2", (-1, ("c", 1))))
    run = fused_arithmetic.FusedRun(program, (), [0.5, 0.1], np.float32)
    first = fused_arithmetic.compile_seconds([run, run])      # one op sequence: one kernel
    assert first == pytest.approx(fused_arithmetic.FIRST_KERNEL_SECONDS +
                                  fused_arithmetic.SECONDS_PER_KERNEL +
                                  2 * fused_arithmetic.SECONDS_PER_OP)
    assert fused_arithmetic.compile_after([run]) == first
    fused_arithmetic._KERNELS[(program, (), "f")] = None      # compiled by another chain
    assert fused_arithmetic.compile_seconds([run]) == 0.0
    monkeypatch.setattr(fused_arithmetic, "_KERNELS", {})
    x = tf.placeholder(tf.float32, [100])
    y = x
    for i in range(20):
        y = y * 0.5 + 0.25 if i % 2 else y - 0.125
    sess = tf.Session()
    value = np.linspace(-1, 1, 100).astype(np.float32)
    # The chain's clock moves 7 ms each time it is read (once before and once after an
    # unfused run), so each run counts 7 ms: what the rule decides from is the time
    # counted, not how fast this machine is.
    ticks = iter(np.arange(0, 100, 0.007))
    monkeypatch.setattr(elementwise_chains, "perf_counter", lambda: float(next(ticks)))
    unfused = sess.run(y, {x: value})
    for _ in range(29):          # 0.2 s counted: more than the old rule's 0.05 s, less
        sess.run(y, {x: value})  # than the 30 ops' estimate (0.5 + 0.1 + 30 * 0.03 s)
    assert fused_arithmetic._KERNELS == {}                    # nothing compiled
    estimate = (fused_arithmetic.FIRST_KERNEL_SECONDS + fused_arithmetic.SECONDS_PER_KERNEL
                + 30 * fused_arithmetic.SECONDS_PER_OP)
    for _ in range(int(estimate / 0.007) + 20 - 30):          # the estimate counted, and more
        fused = sess.run(y, {x: value})
    assert [k for k in fused_arithmetic._KERNELS.values() if k is not None]
    assert same_bits(fused, unfused)
    sess.close()


def test_the_process_keeps_a_bounded_number_of_kernels(monkeypatch, tmp_path):
    # A notebook open all day builds chain after chain: the oldest kernels are let go
    # (a plan holds its own; a later plan compiles again, or loads Numba's disk cache).
    monkeypatch.setattr(fused_arithmetic, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(fused_arithmetic, "_KERNELS", {})
    monkeypatch.setattr(fused_arithmetic, "MAX_KERNELS", 2)
    x = np.array([1.5, -2.0, np.nan, 0.0, -0.0, np.inf], np.float32)
    programs = [(("Mul", (0, ("c", 0))), (op, (-1,))) for op in ("Neg", "Square", "Abs")]
    kernels = []
    for program in programs:
        kernels.append(fused_arithmetic.kernel_for(program, ("f",), np.float32))
        assert kernels[-1] is not None
        assert len(fused_arithmetic._KERNELS) <= 2
    assert (programs[0], ("f",), "f") not in fused_arithmetic._KERNELS     # the oldest
    expected = [np.negative(x * np.float32(3)), np.square(x * np.float32(3)),
                np.absolute(x * np.float32(3))]
    again = fused_arithmetic.kernel_for(programs[0], ("f",), np.float32)
    for kernel, want in zip(kernels + [again], expected + expected[:1]):
        out = np.empty_like(x)
        kernel(out, np.array([3.0], np.float32), x)       # a kept one still runs
        assert same_bits(out, want)


def test_a_short_run_on_a_small_value_runs_numpys_ufuncs(compile_at_once, monkeypatch):
    # Checking a run's operands costs more than its kernel saves on a small value with
    # few links: there the links run as ufuncs in place (the same bits); on a big value,
    # or with SHORT_RUN_LINKS links, the kernel runs.
    monkeypatch.setattr(fused_arithmetic, "SMALL_VALUE", 16384)
    program = (("Mul", (0, 1)), ("AddV2", (-1, ("c", 0))))
    run = fused_arithmetic.FusedRun(program, (0, 1), [0.5], np.float32)
    small = [np.linspace(0, 1, 100, dtype=np.float32)] * 2
    assert run.run(None, small) is None and run.kernels == {}
    big = [np.linspace(0, 1, 20000, dtype=np.float32)] * 2
    assert same_bits(run.run(None, big), big[0] * big[1] + np.float32(0.5))
    assert run.kernels
    five = program + (("Sub", (-1, ("c", 0))),) * 3
    run = fused_arithmetic.FusedRun(five, (0, 1), [0.5], np.float32)
    expected = small[0] * small[1] + np.float32(0.5) - np.float32(0.5)
    expected = expected - np.float32(0.5) - np.float32(0.5)
    assert same_bits(run.run(None, small), expected) and run.kernels
    # a run of constants only, on the chain's value, calls its kernel: nothing to check
    constants_only = fused_arithmetic.FusedRun((("Mul", (-1, ("c", 0))),
                                                ("AddV2", (-1, ("c", 1)))), (), [0.5, 0.1],
                                               np.float32)
    value = small[0].copy()
    assert same_bits(constants_only.run(value, []),
                     small[0] * np.float32(0.5) + np.float32(0.1))
    assert constants_only._own is not None
    # in a session: the chain's value is NumPy's either way
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        w = tf.placeholder(tf.float32, [None])
        y = tf.tanh(x * w + 0.5)
        with tf.Session(config=tf.ConfigProto(device_count={"GPU": 0})) as sess:
            for value in (small[0], big[0]):
                for _ in range(3):
                    got = sess.run(y, {x: value, w: value})
                assert same_bits(got, np.tanh(value * value + np.float32(0.5)))
            step = sess._plan((y,), (x, w), ()).fast_steps[-1]
            assert step.kernel.fused_runs[0][1].kernels       # compiled for the big one
