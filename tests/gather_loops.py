"""A random while_loop that gathers rows of a captured tensor each iteration (repeated
indices likely, some rows never): the program runtime/loop_sums.py's rows-only gradient
sums are tested on, by tfteach alone and against TensorFlow."""
import numpy as np


def gather_loop_program(seed, dtype=np.float64, bad_index=None, bounds=(6, 6, 4)):
    """`build(tf)` -> (the loop's final state, [d/d params, d/d w], feed_dict). T
    iterations each gather k rows of `params` and mix them into the state through a
    matmul by `w`, tanh and a product; `bounds`: the exclusive upper bounds of T, the
    number of rows and k. `bad_index` replaces the last iteration's first index."""
    rng = np.random.RandomState(seed)
    most_steps, most_rows, most_k = bounds
    steps, rows = rng.randint(1, most_steps), rng.randint(2, most_rows)
    k, width = rng.randint(1, most_k), 3
    ids_value = rng.randint(0, rows, (steps, k)).astype(np.int32)
    if bad_index is not None:
        ids_value[-1, 0] = bad_index
    params_value = rng.randn(rows, width).astype(dtype)
    w_value = (rng.randn(width, width) * 0.5).astype(dtype)

    def build(tf):
        params = tf.placeholder(dtype, [None, width], name="params")
        w = tf.placeholder(dtype, [width, width], name="w")
        ids = tf.placeholder(tf.int32, [None, k], name="ids")

        def body(t, s):
            picked = tf.gather(params, tf.gather(ids, t))
            return t + 1, tf.tanh(tf.matmul(s, w) + picked) * (1.0 + 0.1 * picked)
        _, s = tf.while_loop(lambda t, s: t < tf.shape(ids)[0], body,
                             [tf.constant(0), tf.ones([k, width], dtype)])
        grads = tf.gradients(tf.reduce_sum(s * s), [params, w])
        return s, grads, {params: params_value, w: w_value, ids: ids_value}
    return build
