"""tf.print against TensorFlow's: the same calls print the same text.

TensorFlow prints from C++ (to the process's own stdout here: `output_stream=sys.stdout`),
so its program runs in a child process and the test compares what the child printed
with what tfteach prints in this process (capsys), call by call: tensors of each rank and
dtype, summarize, nested Python structures around tensors, separators, escapes. Then
what only tfteach can be asked here: graph mode (each run prints), tf.function (every
call prints, a Python print only at trace time), the streams, and bad arguments.
"""
import importlib.util
import sys

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import run_eager_tensorflow

import tfteach

CALLS = [
    "tf.constant([1, 2, 3])",
    "'x =', tf.constant([[1.5, 2.0], [3.25, 4.0]])",
    "tf.range(10)",
    "tf.range(10), summarize=-1",
    "tf.reshape(tf.range(24), [2, 3, 4])",
    "tf.reshape(tf.range(100), [10, 10])",
    "tf.constant(True), tf.constant([True, False])",
    "tf.constant('hi')",
    "'a', tf.constant('hi'), tf.constant(['x', 'y'])",
    "[tf.constant(1), 2, 's'], {'k': tf.constant(0.1)}",
    "tf.constant(1 / 3), tf.constant(1 / 3, tf.float64), tf.constant(1e-8), "
    "tf.constant(123456789.0)",
    "tf.constant(np.nan), tf.constant([np.inf, -np.inf]), tf.constant(-0.0)",
    "tf.zeros([0]), tf.zeros([2, 0]), tf.constant(7, tf.int64), tf.constant(0.1, tf.float16)",
    "'a', 'b', sep=',', end='!\\n'",
    "",
    "3, 4.5, None",
    "tf.constant([1.0, 2.0]), summarize=1",
    "tf.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), summarize=1",
    "'%d {}', tf.constant(5)",
    "tf.constant(['it\\'s', 'q\"uote', '\\n', 'tab\\there', 'caf\\u00e9'])",
    "tf.constant([1 + 2j])",
    "tf.constant([0.1, 100.0, 1e10, 1.5e-5, -2.5])",
    "(tf.constant(1), tf.constant(2))",
    "tf.constant(np.arange(5, dtype=np.uint8)), tf.constant([-3], tf.int8)",
    "tf.reshape(tf.range(16.0), [2, 2, 2, 2]), summarize=1",
]


def _tensorflow_prints():
    code = ["import sys", "import numpy as np", "import tensorflow as tf"]
    for i, call in enumerate(CALLS):
        args = call + (", " if call else "") + "output_stream=sys.stdout"
        code.append("print('@@%d', flush=True)" % i)
        code.append("tf.print(%s)" % args)
    code.append("print('@@end', flush=True)")
    return _split(run_eager_tensorflow("\n".join(code)))


def _split(text):
    parts = {}
    for chunk in text.split("@@")[1:]:
        key, _, printed = chunk.partition("\n")
        parts[key] = printed
    return [parts[str(i)] for i in range(len(CALLS))]


@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                    reason="TensorFlow is not installed")
def test_prints_what_tensorflow_prints(eager, capsys):
    tf = eager
    theirs = _tensorflow_prints()
    for i, call in enumerate(CALLS):
        args = call + (", " if call else "") + "output_stream=sys.stdout"
        eval("tf.print(%s)" % args, {"tf": tf, "np": np, "sys": sys})   # noqa: S307
        assert capsys.readouterr().out == theirs[i], call


def test_a_graph_prints_each_time_the_op_runs(capsys):
    tf = tfteach
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        printed = tf.print("x is", x, output_stream=sys.stdout)
        assert capsys.readouterr().out == ""           # building prints nothing
        assert [op.type for op in tf.get_default_graph().get_operations()][-2:] == \
            ["StringFormat", "PrintV2"]
        with tf.control_dependencies([printed]):
            doubled = x * 2
        step = tf.while_loop(lambda i: i < 3, lambda i: tf.tuple(
            [i + 1], control_inputs=[tf.print("step", i, output_stream=sys.stdout)])[0],
            [tf.constant(0)])
        with tf.Session() as sess:
            assert sess.run(doubled, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]
            sess.run(printed, {x: [3.0]})
            assert sess.run(step) == 3
    assert capsys.readouterr().out == "x is [1 2]\nx is [3]\nstep 0\nstep 1\nstep 2\n"


def test_a_function_prints_on_every_call(eager, capsys):
    tf = eager

    @tf.function
    def f(x):
        print("tracing")
        tf.print("called with", x, output_stream=sys.stdout)
        return x + 1

    f(tf.constant(1))
    f(tf.constant(2))
    assert capsys.readouterr().out == "tracing\ncalled with 1\ncalled with 2\n"


def test_streams_and_bad_arguments(eager, capsys, tmp_path):
    tf = eager
    tf.print("to stderr", tf.constant([1.5]))          # TF's default stream
    assert capsys.readouterr().err == "to stderr [1.5]\n"
    target = tmp_path / "printed.txt"
    for value in (1, 2):
        tf.print("line", value, output_stream="file://%s" % target)
    assert target.read_text() == "line 1\nline 2\n"
    with pytest.raises(ValueError, match="^Unsupported output stream or logging level 5. "
                                         "Supported streams are sys.stdout"):
        tf.print("x", output_stream=5)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments for tf.print"):
        tf.print("x", colour="red")
