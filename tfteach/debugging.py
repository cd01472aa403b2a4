"""`tf.debugging`: the checks and assertions, under TensorFlow 1.15's namespace.

The ones tfteach has: `check_numerics` and `assert_all_finite` (ops/numerics_ops.py),
`Assert` and the comparisons of ops/check_ops.py, `is_finite` / `is_inf` / `is_nan`.
TF 1.15's other names here (`assert_equal`, `assert_rank`, ...) are not in tfteach yet:
reading one raises an AttributeError.
"""
from tfteach.ops.check_ops import (assert_greater_equal, assert_less, assert_less_equal,
                                   assert_non_negative, assert_type)
from tfteach.ops.logging_ops import Assert
from tfteach.ops.math_ops import is_finite, is_inf, is_nan
from tfteach.ops.numerics_ops import assert_all_finite, check_numerics

__all__ = ["Assert", "assert_all_finite", "assert_greater_equal", "assert_less",
           "assert_less_equal", "assert_non_negative", "assert_type", "check_numerics",
           "is_finite", "is_inf", "is_nan"]
