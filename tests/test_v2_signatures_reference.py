"""TF 2's own arguments under `import tfteach.v2 as tf` (eager/v2_functions.py): the
functions TF 2 (and TF 1.15's tf.compat.v2) gave a new argument order, new defaults or
new behaviour. Before, the v2 namespace had TF 1's: `tf.argmax(x, 1, tf.int32)` named an
op "int32", `tf.where(c, 1.0, x)` did not broadcast, `tf.math.in_top_k(targets,
predictions, k)` swapped its inputs, `tf.random_normal_initializer()` drew with stddev 1,
and eager asserts failed with an AttributeError (an eager tensor's name) or, for
`tf.debugging.Assert`, in words of their own.
Each program runs on TensorFlow 2 (eagerly, in a child process) and on tfteach.v2."""
import inspect
import json

import pytest

from tf_reference import run_eager_tensorflow, tfteach_json

PROGRAM = r'''
import json
import numpy as np
out = {}
x = tf.constant([[1., 5.], [7., 2.]])
out["argmax"] = tf.argmax(x, 1, tf.int32).numpy().tolist()
out["argmax dtype"] = tf.argmax(x, 1, tf.int32).dtype.name
out["math.argmin"] = tf.math.argmin(x, 0, tf.int32).dtype.name
out["where"] = tf.where(tf.constant([True, False]), 1.0,
                        tf.constant([[2.0], [3.0]])).numpy().tolist()
out["where indices"] = tf.where(tf.constant([True, False, True])).numpy().tolist()
out["in_top_k"] = tf.math.in_top_k(tf.constant([1, 0]), x, 1).numpy().tolist()
out["nn.in_top_k"] = tf.nn.in_top_k(tf.constant([0, 0]), x, 1).numpy().tolist()
out["sparse xent"] = np.round(tf.nn.sparse_softmax_cross_entropy_with_logits(
    tf.constant([1, 0]), x).numpy(), 5).tolist()
out["sigmoid xent"] = np.round(tf.nn.sigmoid_cross_entropy_with_logits(
    tf.ones([2, 2]), x).numpy(), 5).tolist()
out["cond list"] = [t.numpy().tolist() for t in tf.cond(
    tf.constant(True), lambda: [tf.constant(1)], lambda: [tf.constant(2)])]
out["pad"] = tf.pad(tf.constant([1., 2.]), [[1, 1]], "CONSTANT", 9.).numpy().tolist()
out["gather"] = tf.gather(x, [1], None, 1).numpy().tolist()
out["gather_nd"] = tf.gather_nd(x, [[0, 1]], 0).numpy().tolist()
out["moments"] = [np.round(t.numpy(), 5).tolist() for t in tf.nn.moments(x, [0], None, True)]
out["transpose"] = tf.transpose(x, [1, 0], False).numpy().tolist()
out["boolean_mask"] = tf.boolean_mask(x, [True, False], 0).numpy().tolist()
out["convert"] = tf.convert_to_tensor(1, None, tf.float32).dtype.name
out["shape"] = tf.shape(x, tf.int64).dtype.name
out["size"] = tf.size(x, tf.int64).dtype.name
out["crelu"] = tf.nn.crelu(x, 0).shape.as_list()
out["confusion"] = tf.math.confusion_matrix([0, 1], [1, 1], 2, [2, 3]).numpy().tolist()
out["embedding div"] = tf.nn.embedding_lookup(
    [tf.constant([[0.], [1.]]), tf.constant([[2.], [3.]])], [1, 2]).numpy().tolist()
normal, uniform = tf.random_normal_initializer(), tf.random_uniform_initializer()
out["normal init"] = [normal.mean, normal.stddev]
out["compat"] = [repr(tf.compat.as_bytes(bytes_or_text="a")),
                 tf.compat.as_text(bytes_or_text=b"b"), tf.compat.as_str(bytes_or_text=b"c")]
out["uniform init"] = [uniform.minval, uniform.maxval]
try:
    tf.expand_dims(x)
except TypeError as e:
    out["expand_dims"] = "TypeError"
try:
    tf.debugging.assert_less(tf.constant(2), tf.constant(1), "too big")
except tf.errors.InvalidArgumentError as e:
    out["assert_less"] = str(e).splitlines()[0]
try:
    tf.assert_less(tf.constant(2), tf.constant(1), "top level")
except tf.errors.InvalidArgumentError as e:
    out["top assert_less"] = str(e).splitlines()[0]
try:
    tf.debugging.Assert(tf.constant(False), ["too big", tf.constant([1, 2, 3, 4])])
except tf.errors.InvalidArgumentError as e:
    out["Assert"] = str(e)
try:
    tf.debugging.Assert(False, ["x", tf.constant([[1.5, 2.0], [3.0, 4.0]]), 7], summarize=2)
except tf.errors.InvalidArgumentError as e:
    out["Assert summarize"] = str(e)
out["Assert holds"] = repr(tf.debugging.Assert(True, ["fine"]))
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def both():
    theirs = json.loads(run_eager_tensorflow("import tensorflow as tf\n" + PROGRAM)
                        .strip().splitlines()[-1])
    ours = tfteach_json("import tfteach.v2 as tf\n" + PROGRAM)
    return theirs, ours


KEYS = ["argmax", "argmax dtype", "math.argmin", "where", "where indices", "in_top_k",
        "nn.in_top_k", "sparse xent", "sigmoid xent", "cond list", "pad", "gather",
        "gather_nd", "moments", "transpose", "boolean_mask", "convert", "shape", "size",
        "crelu", "confusion", "embedding div", "normal init", "uniform init", "expand_dims",
        "compat",
        "assert_less", "top assert_less", "Assert", "Assert summarize", "Assert holds"]


@pytest.mark.parametrize("key", KEYS)
def test_tf2_arguments_give_tensorflows_results(both, key):
    theirs, ours = both
    assert key in theirs, theirs
    if key in TF_1_15_WORDS:
        # TF 2.1 rewrote the eager assert_* messages; TF 1.15's check_ops gave its Assert
        # the message, the condition and x and y named by shape and dtype.
        assert ours.get(key) == TF_1_15_WORDS[key]
        return
    assert ours.get(key) == theirs[key]


TF_1_15_WORDS = {
    key: "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
         "b'%s'" % message for key, message in (("assert_less", "too big"),
                                                  ("top assert_less", "top level"))}


# TF 2 added these arguments after 1.15 (tfteach follows 1.15's signatures).
LATER = {"gather_nd": {"bad_indices_policy"}, "ones_like": {"layout"},
         "zeros_like": {"layout"}, "constant_initializer": {"support_partition"}}


def _names(fn):
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def test_signatures_are_tensorflows():
    """Every function of v2_functions: TF 2's parameter names in TF 2's order."""
    from tfteach.eager import v2_functions
    tables = {"": v2_functions.TOP_LEVEL, "math.": v2_functions.MATH,
              "nn.": v2_functions.NN, "io.": v2_functions.IO}
    code = ["import json, inspect", "import tensorflow as tf", "out = {}"]
    names = [prefix + name for prefix, table in tables.items() for name in table]
    names += ["debugging." + n for n in v2_functions.ASSERTS]
    for full in names:
        code.append("try:\n    out[%r] = [p.name for p in inspect.signature(tf.%s)"
                    ".parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]\n"
                    "except Exception:\n    pass" % (full, full))
    code.append("print(json.dumps(out))")
    theirs = json.loads(run_eager_tensorflow("\n".join(code)).strip().splitlines()[-1])
    for full in names:
        prefix, _, name = full.rpartition(".")
        if name in v2_functions.ASSERTS:
            ours = _names(v2_functions.assert_function(name))
        else:
            ours = _names(tables[prefix + "." if prefix else ""][name])
        expected = [n for n in theirs[full] if n not in LATER.get(name, ())]
        assert ours == expected, full
