"""Short hints appended to the errors the course notes discuss (how to fix it)."""

__all__ = ["HINTS", "with_hint"]

HINTS = {
    "uninitialized": "Hint: variables have no value until their initializer runs in this "
                     "session: run sess.run(tf.global_variables_initializer()) first "
                     "(使用 variable 之前必須先初始化).",
    "placeholder": "Hint: a placeholder has no value of its own; pass one with "
                   "sess.run(..., feed_dict={placeholder: value}).",
    "ragged": "Hint: every row of a fed list must have the same length; pad the short rows "
              "(for example with 0) before feeding.",
}


def with_hint(error, key):
    """Returns `error` carrying the hint `HINTS[key]`."""
    error.hint = HINTS[key]
    return error
