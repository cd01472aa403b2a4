"""Random draws: tfteach's kernels (TensorFlow's Philox stream, kernels/cpu/philox.py)
against NumPy's own Philox generator and TensorFlow's ops, on the same sizes, same run.

tfteach must draw TensorFlow's bits, so it cannot use NumPy's generator; this shows what
that costs. A normal is Box-Muller with the C library's exact `log`/`sin`/`cos` (TF's
kernel calls them; NumPy's generator uses its own algorithm). TensorFlow's column is
`sess.run` of the op, so it includes a session call (~100 us here).

Microseconds per draw, best of 7 rounds.

    python bench/random_draws.py [--quick]
"""
import argparse
import timeit

import numpy as np

SHAPES = [(128, 64), (32, 512), (1000, 1000)]


def best_us(fn, number, rounds=7):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=rounds)) / number * 1e6


def tensorflow_ops(shape):
    """{kind: a callable running TensorFlow's op} (graph mode), or {} without TF."""
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    graph = tf1.Graph()
    with graph.as_default():
        ops = {"uniform float32": tf1.random_uniform(shape, seed=1),
               "uniform float64": tf1.random_uniform(shape, dtype=tf.float64, seed=1),
               "normal float32": tf1.random_normal(shape, seed=1),
               "truncated float32": tf1.truncated_normal(shape, seed=1)}
        sess = tf1.Session(graph=graph)
    return {kind: (lambda op=op: sess.run(op)) for kind, op in ops.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    from tfteach.kernels.cpu import philox
    shapes = SHAPES[:1] if args.quick else SHAPES
    print(__doc__.split("\n\n")[0])
    print("%-20s %-18s %9s %9s %9s %9s %9s" % ("shape", "draw", "tfteach", "numpy",
                                               "tf", "tt/np", "tt/tf"))
    for shape in shapes:
        number = 3 if np.prod(shape) > 100000 else 100
        stream = philox.Stream(1, 2)
        gen = np.random.Generator(np.random.Philox(key=1))
        ours = {"uniform float32": lambda: philox.uniform(stream, shape, np.float32),
                "uniform float64": lambda: philox.uniform(stream, shape, np.float64),
                "normal float32": lambda: philox.normal(stream, shape, np.float32),
                "truncated float32": lambda: philox.truncated_normal(stream, shape,
                                                                    np.float32)}
        numpys = {"uniform float32": lambda: gen.random(shape, np.float32),
                  "uniform float64": lambda: gen.random(shape, np.float64),
                  "normal float32": lambda: gen.standard_normal(shape, np.float32),
                  "truncated float32": None}      # NumPy has no truncated normal
        theirs = tensorflow_ops(shape)
        for kind, draw in ours.items():
            t = best_us(draw, number)
            n = best_us(numpys[kind], number) if numpys[kind] else float("nan")
            f = best_us(theirs[kind], number) if kind in theirs else float("nan")
            print("%-20s %-18s %9.1f %9.1f %9.1f %9.2f %9.2f" % (
                "x".join(map(str, shape)), kind, t, n, f, t / n, t / f))


if __name__ == "__main__":
    main()
