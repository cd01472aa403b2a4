"""Short hints appended to the errors the course notes discuss (how to fix it)."""

__all__ = ["HINTS", "BUILD_HINTS", "with_hint", "hint_for"]

import re

HINTS = {
    "uninitialized": "Hint: variables have no value until their initializer runs in this "
                     "session: run sess.run(tf.global_variables_initializer()) first "
                     "(使用 variable 之前必須先初始化).",
    # A local variable (tf.metrics' counts, ...): the notes' "uninitialized value
    # auc/true_positives", which global_variables_initializer() does not fix.
    "uninitialized_local": "Hint: this is a local variable (tf.metrics keep their counts "
                           "in local variables), which tf.global_variables_initializer() "
                           "does not initialize: also run "
                           "sess.run(tf.local_variables_initializer()).",
    "placeholder": "Hint: a placeholder has no value of its own; pass one with "
                   "sess.run(..., feed_dict={placeholder: value}).",
    "ragged": "Hint: every row of a fed list must have the same length; pad the short rows "
              "(for example with 0) before feeding.",
    # A directory or one of the checkpoint's files where its prefix belongs.
    "checkpoint_prefix": "Hint: a checkpoint is named by its prefix, without .index, .meta "
                         "or .data-...: what saver.save returned, or "
                         "tf.train.latest_checkpoint(directory).",
}


def with_hint(error, key):
    """Returns `error` carrying the hint `HINTS[key]`."""
    error.hint = HINTS[key]
    return error


# Errors raised while a graph is *built* (Python's ValueError / TypeError, as in
# TensorFlow), matched on TensorFlow's words; the notebook shows the hint under them.
BUILD_HINTS = [
    (r"Dimensions must be equal.*'MatMul'|Shape must be rank 2 but is rank \d+ for '\w*[Mm]at[Mm]ul",
     "Hint: tf.matmul(a, b) needs a of shape [m, k] and b of shape [k, n] (two matrices); "
     "check the shapes with a.shape, b.shape — transpose_b=True, tf.reshape or "
     "tf.tensordot fix most cases (矩阵乘法的维度要对齐)."),
    (r"Dimensions must be equal|are incompatible|Incompatible shapes",
     "Hint: the two shapes cannot be broadcast together: compare x.shape of the inputs "
     "(维度不匹配)."),
    (r"does not match type|Tensor conversion requested dtype",
     "Hint: every input of an op must have the same dtype; give the constant a dtype "
     "(tf.constant([1, 2], dtype=tf.float32)) or convert with tf.cast (类型不匹配)."),
    (r"already exists, disallowed",
     "Hint: tf.get_variable creates the variable once; to use it again open the scope "
     "with reuse=True (tf.variable_scope('name', reuse=True)) or reuse=tf.AUTO_REUSE."),
    (r"does not exist, or was not created with tf.get_variable",
     "Hint: with reuse=True, tf.get_variable only looks variables up: create it first in "
     "a scope without reuse, or use reuse=tf.AUTO_REUSE."),
    (r"is not an element of this graph|must be from the same graph",
     "Hint: a tensor belongs to the graph it was built in: run it with a Session of that "
     "graph (tf.Session(graph=g)), or build everything inside one `with g.as_default():`."),
    (r"Cannot feed value of shape",
     "Hint: a fed value must have the placeholder's shape (None matches any size): "
     "compare value.shape with placeholder.shape."),
    (r"No gradients provided for any variable",
     "Hint: the loss does not depend on any variable through differentiable ops: look "
     "for tf.cast/tf.round/argmax in the loss, or a tensor replaced by its sess.run value."),
    (r"is not a valid (node|scope) name",
     "Hint: names may hold letters, digits, '.', '_', '-' and '/' (not spaces), and must "
     "start with a letter, digit or '.'."),
    (r"If there is no initial_state, you must give a dtype",
     "Hint: pass dtype=tf.float32 to tf.nn.dynamic_rnn, or an initial_state "
     "(cell.zero_state(batch_size, tf.float32))."),
    (r"No default session is registered",
     "Hint: t.eval() needs a default session: `with tf.Session() as sess:` around it, "
     "a tf.InteractiveSession(), or t.eval(session=sess)."),
]


def hint_for(message):
    """The build-time hint whose pattern matches `message`, or None."""
    for pattern, hint in BUILD_HINTS:
        if re.search(pattern, message):
            return hint
    return None
