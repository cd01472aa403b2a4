"""The math op family, as `tf.*` names: this module only gathers and re-exports.

- binary_ops:      add, subtract, multiply, the divisions, pow, maximum, ...
- unary_ops:       negative, abs, exp, log, sigmoid, sign, round, ...
- comparison_ops:  equal, less, ..., logical_and/or/xor/not
- cast_ops:        cast, saturate_cast, to_float, ...
- aggregate_ops:   add_n, accumulate_n
- clip_ops:        clip_by_value
- linalg_ops:      matmul, tensordot
- complex_ops:     complex, real, imag, conj, angle
- tensor_operators installs `+ - * / // % ** @ < <= > >= & | ^ ~` and unary `-`/abs().
"""
from tfteach.ops import aggregate_ops, binary_ops, cast_ops, clip_ops, comparison_ops
from tfteach.ops import complex_ops
from tfteach.ops import linalg_ops, tensor_operators, unary_ops  # noqa: F401 (operators)
from tfteach.ops.aggregate_ops import *  # noqa: F401,F403
from tfteach.ops.binary_ops import *  # noqa: F401,F403
from tfteach.ops.cast_ops import *  # noqa: F401,F403
from tfteach.ops.clip_ops import *  # noqa: F401,F403
from tfteach.ops.comparison_ops import *  # noqa: F401,F403
from tfteach.ops.complex_ops import *  # noqa: F401,F403
from tfteach.ops.linalg_ops import *  # noqa: F401,F403
from tfteach.ops.unary_ops import *  # noqa: F401,F403

__all__ = (aggregate_ops.__all__ + binary_ops.__all__ + cast_ops.__all__ + clip_ops.__all__
           + comparison_ops.__all__ + complex_ops.__all__ + linalg_ops.__all__ + unary_ops.__all__)
