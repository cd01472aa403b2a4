"""The AutoGraph programs of test_autograph.py and test_autograph_reference.py.

Each function here takes a TF 2 module (`tfteach.v2`, or TensorFlow itself) and returns
the plain Python function of one program; the tests wrap it in `tf.function`.
test_autograph.py compares tfteach's tf.function with the same function run eagerly;
test_autograph_reference.py runs `reference_results` on tfteach and, in a child process
(its own TensorFlow is in graph mode for the other reference tests), on TensorFlow, and
compares the two. AutoGraph reads a function's source, so the programs live in a file
that both processes import. Most programs say `tf.equal`; `equality_tests` uses `==`
and `!=`, elementwise with TF 2 behaviour (TF 1.15's tensor equality) as in TF 2.

Only NumPy is imported here: the TensorFlow child process loads this file by its path.
"""
import numpy as np


def sum_of_squares(tf):
    def sum_of_squares(x):
        s = tf.constant(0.0)
        for e in x:
            s += e * e
        return s
    return sum_of_squares


def evens(tf):
    def evens(n):
        s = 0
        for i in tf.range(n):
            if tf.equal(i % 2, 0):         # a converted `if` inside a converted `for`
                s += i
        return s
    return evens


def until_big(tf):
    def until_big(n):
        s = 0
        for i in tf.range(n):
            if i > 4:
                break
            s += i
        return s
    return until_big


def positives(tf):
    def positives(x):
        s = tf.constant(0.0)
        count = 0
        for e in x:
            if e < 0:
                continue
            s += e
            count += 1
        return s, count
    return positives


def first_square_above(tf):
    def first_square_above(n, limit):
        i = tf.constant(0)
        while i < n:
            i += 1
            if i * i > limit:
                break
        return i
    return first_square_above


def skip_multiples_of_three(tf):
    def skip_multiples_of_three(n):
        i = tf.constant(0)
        s = tf.constant(0)
        while i < n:
            i += 1
            if tf.equal(i % 3, 0):
                continue
            s += i
        return s
    return skip_multiples_of_three


def pair_products(tf):
    def pair_products(a, b):
        total = tf.constant(0.0)
        for x in a:
            for y in b:
                p = x * y                  # local to the body: not a loop variable
                total += p
        return total
    return pair_products


def add_positives(tf, v):
    """Adds the positive elements to the variable `v`; returns its value."""
    def add_positives(x):
        for e in x:
            if e > 0:
                v.assign_add(e)
        return v.read_value()
    return add_positives


# -- what test_autograph_reference.py compares (programs only it runs) -------------------
def _decayed_rows(tf):
    def rows(m):
        acc = tf.zeros([3])
        for r in m:
            acc = acc * 0.5 + r
        return acc
    return rows


def _tape_loss(tf, w, b):
    def loss_fn(x):
        # 0.3: away from tanh's saturation, where 1 - tanh² cancels
        h = tf.tanh(0.3 * (tf.matmul(x, w) + b))
        total = tf.constant(0.0)
        for row in h:
            total += tf.reduce_sum(row * row)
        if total > 1.0:
            total = total * 2.0
        return total
    return loss_fn


def equality_tests(tf):
    def equality_tests(x, n):
        if x == 0:                      # `==` of tensors: a tensor, so a converted `if`
            y = x + 10
        else:
            y = x - 10
        i = tf.constant(0)
        total = tf.constant(0)
        while i != n:                   # and a converted `while`
            total += i
            i += 1
        evens = tf.reduce_sum(tf.cast(tf.range(n) % 2 == 0, tf.int32))
        return y, total, evens
    return equality_tests


def reference_results(tf):
    """Every program's results as JSON-ready lists, run by `tf` (tfteach.v2 or
    TensorFlow 2)."""
    out = {}
    squares = tf.function(sum_of_squares(tf))
    out["squares"] = [float(squares(tf.constant([1.0, 2.0, 3.0]))),
                      float(squares(tf.constant([0.5, -1.5])))]

    count_evens = tf.function(evens(tf))
    out["evens"] = [int(count_evens(tf.constant(n))) for n in (10, 7, 0)] + [
        count_evens.experimental_get_tracing_count()]

    stop = tf.function(until_big(tf))
    out["break"] = [int(stop(tf.constant(n))) for n in (10, 3)]

    s, count = tf.function(positives(tf))(tf.constant([1.0, -2.0, 3.0, -4.0, 5.0]))
    out["continue"] = [float(s), int(count)]

    above = tf.function(first_square_above(tf))
    out["while_break"] = [int(above(tf.constant(100), tf.constant(50))),
                          int(above(tf.constant(3), tf.constant(50)))]

    skip = tf.function(skip_multiples_of_three(tf))
    out["while_continue"] = [int(skip(tf.constant(n))) for n in (10, 2)]

    out["nested"] = float(tf.function(pair_products(tf))(tf.constant([1.0, 2.0]),
                                                         tf.constant([3.0, 4.0])))

    out["rows"] = tf.function(_decayed_rows(tf))(
        tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))).numpy().tolist()

    add = tf.function(add_positives(tf, tf.Variable(0.0)))
    out["updates"] = [float(add(tf.constant([1.0, -1.0, 2.0]))),
                      float(add(tf.constant([10.0, -5.0])))]

    equal = tf.function(equality_tests(tf))
    out["equality"] = [[int(e) for e in equal(x, n)]
                       for x, n in ((tf.constant(0), tf.constant(5)),
                                    (tf.constant(3), tf.constant(4)))]

    # A tf.function under an outer tape: its ops, and the variables it captures.
    r = np.random.RandomState(1)
    w = tf.Variable(r.randn(3, 2).astype(np.float32))
    b = tf.Variable(r.randn(2).astype(np.float32))
    loss_fn = tf.function(_tape_loss(tf, w, b))
    x = tf.constant(r.randn(4, 3).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = loss_fn(x)
    gx, gw, gb = tape.gradient(loss, [x, w, b])
    out["tape"] = [float(loss), gx.numpy().tolist(), gw.numpy().tolist(),
                   gb.numpy().tolist()]
    with tf.GradientTape() as tape:
        loss = loss_fn(x) + tf.reduce_sum(w)
    out["tape_variables"] = [g.numpy().tolist() for g in tape.gradient(loss, [w, b])]
    return out
