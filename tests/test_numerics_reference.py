"""`tf.check_numerics`, `tf.verify_tensor_all_finite`, `tf.add_check_numerics_ops` and
the gradient of CheckNumerics against TensorFlow: the nodes they build, the values they
pass on, the errors a NaN or an Inf raises (class and words), bad input."""
import numpy as np
import pytest

from tests.tf_reference import eager_tensorflow_json, own_message, tf1_behaviour, tfteach_json

import tfteach


def _both(program):
    with tf1_behaviour() as tf1:
        theirs = program(tf1)
    return program(tfteach), theirs


def _nodes(graph):
    return [(op.name, op.type, sorted(c.name for c in op.control_inputs))
            for op in graph.get_operations()]


def _message(op):
    value = op.get_attr("message")
    return value.decode() if isinstance(value, bytes) else value


def _error(sess, fetch, feed=None):
    try:
        sess.run(fetch, feed)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, own_message(e)
    return None


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_values_pass_and_nan_or_inf_fail_with_tensorflows_words(dtype):
    def program(tf):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(dtype, [None])
            checked = tf.check_numerics(x, "bad x")
            verified = tf.verify_tensor_all_finite(x * 2, "not finite")
            messages = [_message(op) for op in graph.get_operations()
                        if op.type == "CheckNumerics"]
            with tf.Session(graph=graph) as sess:
                fine = sess.run([checked, verified], {x: [1.5, -2.0]})
                errors = [_error(sess, checked, {x: v}) for v in
                          ([np.nan, 1.0], [np.inf, 1.0], [-np.inf, np.nan], [])]
                errors.append(_error(sess, verified, {x: [np.inf]}))
        return (_nodes(graph), messages, [np.asarray(v).tolist() for v in fine],
                [str(np.asarray(v).dtype) for v in fine], errors)
    ours, theirs = _both(program)
    assert ours == theirs
    assert ours[4][:3] == [("InvalidArgumentError", "bad x : Tensor had NaN values"),
                           ("InvalidArgumentError", "bad x : Tensor had Inf values"),
                           ("InvalidArgumentError", "bad x : Tensor had Inf and NaN values")]


def test_the_gradient_checks_the_gradient():
    """sqrt(0) is finite, its gradient is not: the check before the sqrt passes forward
    and fails backward, with TF's words (the b'...' of Python 3's bytes included)."""
    def program(tf):
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None])
            y = tf.check_numerics(x, "x")
            (dx,) = tf.gradients(tf.reduce_sum(tf.sqrt(y)), [x])
            checks = [(op.name, _message(op)) for op in graph.get_operations()
                      if op.type == "CheckNumerics"]
            with tf.Session(graph=graph) as sess:
                fine = sess.run(dx, {x: [4.0, 1.0]}).tolist()
                return checks, fine, _error(sess, dx, {x: [0.0, 1.0]})
    ours, theirs = _both(program)
    assert ours == theirs
    assert ours[2][1] == ("Not a number (NaN) or infinity (Inf) values detected in gradient. "
                          "b'x' : Tensor had Inf values")


def test_add_check_numerics_ops_checks_every_float_output_in_order():
    def program(tf):
        graph = tf.Graph()
        with graph.as_default():
            a = tf.constant([1.0, 2.0])
            b = tf.placeholder(tf.float32)
            c = a / b
            tf.cast(c, tf.int32)
            tf.constant([1, 2])                    # not a float: not checked
            check = tf.add_check_numerics_ops()
            checks = [(op.name, _message(op), [i.name for i in op.control_inputs])
                      for op in graph.get_operations() if op.type == "CheckNumerics"]
            with tf.Session(graph=graph) as sess:
                sess.run(check, {b: 2.0})
                return check.name, check.type, checks, _error(sess, check, {b: 0.0})
    ours, theirs = _both(program)
    assert ours == theirs
    assert ours[3] == ("InvalidArgumentError", "truediv:0 : Tensor had Inf values")


def test_add_check_numerics_ops_refuses_control_flow():
    def program(tf):
        with tf.Graph().as_default():
            tf.while_loop(lambda i: i < 3.0, lambda i: i + 1.0, [0.0])
            with pytest.raises(ValueError) as info:
                tf.add_check_numerics_ops()
            return str(info.value)
    ours, theirs = _both(program)
    assert ours == theirs


def test_integer_input_is_tensorflows_type_error():
    def program(tf):
        with tf.Graph().as_default():
            with pytest.raises(TypeError) as info:
                tf.check_numerics(tf.constant([1, 2]), "ints")
            return str(info.value)
    ours, theirs = _both(program)
    assert ours == theirs


EAGER = """
import json
import numpy as np
{imports}
out = [tf.debugging.check_numerics(tf.constant([1.0, 2.0]), "m").numpy().tolist()]
for value in ([np.nan], [np.inf, np.nan]):
    try:
        tf.debugging.check_numerics(tf.constant(value), "eager check")
    except Exception as e:
        # (TF 2.21 wraps eager errors in "{{function_node ...}} " and " name: "; 1.15 not)
        out.append([type(e).__name__, str(e).split("}} ")[-1].replace(" name: ", "")])
try:
    tf.compat.v1.add_check_numerics_ops()
except Exception as e:
    out.append([type(e).__name__, str(e)])
print(json.dumps(out))
"""


def test_eager():
    expected = eager_tensorflow_json(EAGER.format(imports="import tensorflow as tf"))
    got = tfteach_json(EAGER.format(imports="import tfteach.v2 as tf"))
    assert got[:3] == expected[:3]
    assert got[1] == ["InvalidArgumentError",
                      "eager check : Tensor had NaN values [Op:CheckNumerics]"]
    # TF 2 points to tf.debugging.enable_check_numerics (TF 2.1's); 1.15 to tfe.seterr
    assert expected[3][0] == got[3][0] == "RuntimeError"
    assert got[3][1] == (
        "add_check_numerics_ops() is not compatible with eager execution. To check for "
        "Inf's and NaN's under eager execution, call tfe.seterr(inf_or_nan='raise') once "
        "before executing the checked operations.")
