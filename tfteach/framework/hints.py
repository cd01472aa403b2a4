"""Short hints appended to the errors the course notes discuss (how to fix it)."""

__all__ = ["HINTS", "with_hint"]

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
}


def with_hint(error, key):
    """Returns `error` carrying the hint `HINTS[key]`."""
    error.hint = HINTS[key]
    return error
