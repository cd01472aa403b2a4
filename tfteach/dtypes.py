"""`tf.dtypes`: the dtype objects and the functions that change dtypes, as TF 1.15's
namespace (`tf.dtypes.complex64`, `tf.dtypes.as_dtype`, `tf.dtypes.cast`, ...).

Re-exports only: the dtypes live in framework/dtypes.py, the ops in ops/.
"""
from tfteach.framework.dtypes import *  # noqa: F401,F403
from tfteach.framework.dtypes import DType, as_dtype  # noqa: F401
from tfteach.ops.cast_ops import cast, saturate_cast  # noqa: F401
from tfteach.ops.complex_ops import complex  # noqa: F401,A004
