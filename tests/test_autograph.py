"""AutoGraph's loops: `for` over tensors, `break` / `continue`, nested converted
statements, updates inside loops. Each tf.function is compared with the same Python
function run eagerly (its loops then run in Python over eager tensors), and checked to
have become one graph with a while loop (not unrolled), traced once for several inputs.
The programs both tests share are in autograph_programs.py; TensorFlow's own
tf.function on them: test_autograph_reference.py."""
import numpy as np
import pytest

import autograph_programs as programs
from eager_helpers import eager, tf2  # noqa: F401 - fixtures


def _loop_ops(function):
    graph = function.concrete_functions[-1].graph
    return {op.type for op in graph.get_operations()}


def _same_as_eager(tf, fn, *inputs_list):
    compiled = tf.function(fn)
    for inputs in inputs_list:
        want = fn(*[tf.constant(x) for x in inputs])
        got = compiled(*[tf.constant(x) for x in inputs])
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    return compiled


def test_for_over_a_tensor_is_one_while_loop(tf2):
    tf = tf2
    f = _same_as_eager(tf, programs.sum_of_squares(tf), ([1.0, 2.0, 3.0],), ([4.0],),
                       ([],))
    assert float(f(tf.constant([1.0, 2.0, 3.0]))) == 14.0
    assert {"Exit", "NextIteration", "LoopCond"} <= _loop_ops(f)

    def row_sum(m):
        out = tf.zeros([2])
        for row in m:                      # slices along the first dimension
            out += row
        return out
    f = _same_as_eager(tf, row_sum, (np.arange(6, dtype=np.float32).reshape(3, 2),))
    np.testing.assert_array_equal(f(tf.constant(np.ones((4, 2), np.float32))).numpy(), [4, 4])


def test_for_over_tf_range_traces_once(tf2):
    tf = tf2
    f = _same_as_eager(tf, programs.evens(tf), (10,), (7,), (0,))
    assert int(f(tf.constant(10))) == 0 + 2 + 4 + 6 + 8
    assert f.experimental_get_tracing_count() == 1
    assert {"Switch", "Merge", "LoopCond"} <= _loop_ops(f)


def test_break_and_continue(tf2):
    tf = tf2
    f = _same_as_eager(tf, programs.until_big(tf), (10,), (3,), (0,))
    assert int(f(tf.constant(10))) == 10

    f = _same_as_eager(tf, programs.positives(tf), ([1.0, -2.0, 3.0, -4.0, 5.0],),
                       ([-1.0],))
    s, count = f(tf.constant([1.0, -2.0, 3.0, -4.0, 5.0]))
    assert float(s) == 9.0 and int(count) == 3

    f = _same_as_eager(tf, programs.first_square_above(tf), (100, 50), (3, 50), (100, 0))
    assert int(f(tf.constant(100), tf.constant(50))) == 8

    f = _same_as_eager(tf, programs.skip_multiples_of_three(tf), (10,), (2,))
    assert int(f(tf.constant(10))) == 1 + 2 + 4 + 5 + 7 + 8 + 10


def test_nested_loops_and_loop_local_names(tf2):
    tf = tf2
    f = _same_as_eager(tf, programs.pair_products(tf), ([1.0, 2.0], [3.0, 4.0, 5.0]))
    assert float(f(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0, 5.0]))) == 36.0


def test_variable_updates_inside_loops_run_every_call(tf2):
    tf = tf2
    v = tf.Variable(0.0)
    add_positives = tf.function(programs.add_positives(tf, v))

    assert float(add_positives(tf.constant([1.0, -1.0, 2.0]))) == 3.0
    assert float(add_positives(tf.constant([10.0, -5.0, 0.5]))) == 13.5
    assert float(v.numpy()) == 13.5

    counter = tf.Variable(0)

    @tf.function
    def count_to(n):
        for _ in tf.range(n):
            counter.assign_add(1)          # nothing returned depends on it
        return tf.constant(0)

    count_to(tf.constant(4))
    count_to(tf.constant(3))
    assert int(counter.numpy()) == 7


def test_python_loops_stay_python(tf2):
    tf = tf2
    traced = []

    @tf.function
    def f(x):
        for k in range(3):                 # a Python range: unrolled at trace time
            traced.append(k)
            x = x * 2.0
        for scale in [1.0, 10.0]:          # a Python list: unrolled
            x = x + scale
        for k in range(10):
            if k == 2:                     # a Python jump: Python's break
                break
            x = x + 100.0
        return x

    assert float(f(tf.constant(1.0))) == 1.0 * 8 + 11.0 + 200.0
    assert traced == [0, 1, 2]
    assert "LoopCond" not in _loop_ops(f)


def test_loop_errors(tf2):
    tf = tf2

    @tf.function
    def over_scalar(x):
        s = 0.0
        for e in x:
            s += e
        return s

    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        over_scalar(tf.constant(1.0))

    @tf.function
    def changes_dtype(x):
        s = 0                              # an int32 loop variable made float32
        for e in x:
            s = e * 2.0
        return s

    with pytest.raises((TypeError, ValueError), match="converted to tf.while_loop"):
        changes_dtype(tf.constant([1.0, 2.0]))

    @tf.function
    def returns_inside(x):
        for e in x:                        # not converted (a `return` inside): Python's
            return e * 3.0                 # loop over the tensor's slices, at trace time
        return x

    assert float(returns_inside(tf.constant([2.0, 5.0]))) == 6.0
    assert "LoopCond" not in _loop_ops(returns_inside)


def test_function_under_an_outer_tape_gives_the_eager_gradients(tf2):
    tf = tf2
    r = np.random.RandomState(3)
    w = tf.Variable(r.randn(3, 2).astype(np.float32))
    x = tf.constant(r.randn(4, 3).astype(np.float32))

    def loss_fn(x):
        total = tf.constant(0.0)
        for row in tf.tanh(tf.matmul(x, w)):
            total += tf.reduce_sum(row * row)
        return total
    compiled = tf.function(loss_fn)
    grads = []
    for fn in (loss_fn, compiled):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = fn(x)
        grads.append([g.numpy() for g in tape.gradient(loss, [x, w])])
    for ours, eager_run in zip(*grads):
        np.testing.assert_array_equal(ours, eager_run)
    # and against central differences on one weight
    eps = 1e-2
    w0 = w.numpy().copy()
    values = []
    for delta in (eps, -eps):
        moved = w0.copy()
        moved[1, 0] += delta
        w.assign(moved)
        values.append(float(loss_fn(x).numpy()))
    np.testing.assert_allclose(grads[1][1][1, 0], (values[0] - values[1]) / (2 * eps),
                               rtol=1e-2, atol=1e-3)


def test_a_loop_local_name_read_after_the_loop_must_be_defined_before(tf2):
    tf = tf2

    @tf.function
    def last_double(x):
        for e in x:
            p = e * 2.0
        return p

    with pytest.raises(ValueError, match="'p' is assigned in a `for` loop converted to "
                                         "tf.while_loop and used after it"):
        last_double(tf.constant([1.0, 2.0]))

    def defined_before(x):
        p = tf.constant(0.0)
        for e in x:
            p = e * 2.0
        return p
    _same_as_eager(tf, defined_before, ([1.0, 2.0],), ([],))


def test_python_range_of_a_tensor_is_tf_range(tf2):
    tf = tf2

    def triangle(n):
        s = tf.constant(0)
        for i in range(n):                 # n a tensor: tf.range, one while_loop
            s += i
        return s
    f = tf.function(triangle)
    for n in (0, 1, 5, 9):
        assert int(f(tf.constant(n))) == n * (n - 1) // 2
    assert f.experimental_get_tracing_count() == 1
    assert "LoopCond" in _loop_ops(f)

    @tf.function
    def steps(x, n):
        for i in range(1, n, 2):           # n a Python int: Python's range, unrolled
            x = x + i
        return x
    assert float(steps(tf.constant(0.0), 6)) == 1 + 3 + 5
    assert "LoopCond" not in _loop_ops(steps)


def test_gradients_through_converted_loops_and_branches(tf2):
    tf = tf2
    w = tf.Variable(2.0)

    def grad(xs):
        with tf.GradientTape() as tape:
            s = tf.constant(0.0)
            for x in xs:
                if x > 0:
                    s += w * w * x      # d/dw = 2 w x for the positive x
        return tape.gradient(s, w)
    xs = tf.constant([1.0, -2.0, 3.0])
    compiled = tf.function(grad)
    assert float(compiled(xs)) == float(grad(xs)) == 2 * 2.0 * (1.0 + 3.0)
    assert "LoopCond" in _loop_ops(compiled)
