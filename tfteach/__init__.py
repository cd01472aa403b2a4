"""tfteach: TensorFlow 1.x's graph-and-Session model on a Numba engine, for teaching.

`import tfteach as tf` gives the TF 1.15 names the course notes use. This module only
re-exports; every name is defined in the layer that owns it (see docs/ and DESIGN.md).
"""
from tfteach import errors  # noqa: F401
from tfteach.framework.convert import (convert_to_tensor, is_tensor,  # noqa: F401
                                       register_tensor_conversion_function)
from tfteach.framework.dtypes import *  # noqa: F401,F403
from tfteach.framework.dtypes import DType, as_dtype  # noqa: F401
from tfteach.framework.graph import (Graph, GraphKeys, get_default_graph,  # noqa: F401
                                     reset_default_graph)
from tfteach.framework.graph_functions import *  # noqa: F401,F403
from tfteach.framework.operation import Operation  # noqa: F401
from tfteach.framework.tensor import Tensor  # noqa: F401
from tfteach.framework.tensor_shape import Dimension, TensorShape  # noqa: F401
from tfteach.ops import array_grad, control_flow_grad, math_grad  # noqa: F401 (registers)
from tfteach.ops.array_ops import *  # noqa: F401,F403
from tfteach.ops.check_ops import *  # noqa: F401,F403
from tfteach.ops.clip_norm_ops import *  # noqa: F401,F403
from tfteach.ops.constant_op import *  # noqa: F401,F403
from tfteach.ops.control_flow_ops import *  # noqa: F401,F403
from tfteach.ops.diag_ops import *  # noqa: F401,F403
from tfteach.ops.init_ops import *  # noqa: F401,F403
from tfteach.ops.gradients_impl import *  # noqa: F401,F403
from tfteach.ops.hessians_impl import *  # noqa: F401,F403
from tfteach.ops.math_ops import *  # noqa: F401,F403
from tfteach.ops.numerics_ops import *  # noqa: F401,F403
from tfteach.ops.random_ops import *  # noqa: F401,F403
from tfteach.ops.reduction_ops import *  # noqa: F401,F403
from tfteach.ops.partition_ops import *  # noqa: F401,F403
from tfteach.ops.reverse_sequence_ops import *  # noqa: F401,F403
from tfteach.ops.sparse_ops import *  # noqa: F401,F403
from tfteach.ops.state_ops import *  # noqa: F401,F403
from tfteach.ops.variable_scope import *  # noqa: F401,F403
from tfteach.ops.variables import *  # noqa: F401,F403
from tfteach.runtime.run_metadata import RunMetadata  # noqa: F401
from tfteach.runtime.session import (InteractiveSession, Session,  # noqa: F401
                                     get_default_session)
from tfteach import dtypes  # noqa: F401,E402 (tf.dtypes: the dtypes, cast, complex)
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401,E402
# -- eager execution (issue 19, helper eager: tfteach/eager/, docs/eager.md) ---------------
from tfteach.eager.context import (enable_eager_execution, executing_eagerly,  # noqa: F401,E402
                                   enable_v2_behavior, disable_v2_behavior,
                                   disable_eager_execution, enable_tensor_equality,
                                   disable_tensor_equality)
from tfteach.eager.tape import GradientTape  # noqa: F401,E402
from tfteach.eager.function import function  # noqa: F401,E402
from tfteach.eager.module import Module  # noqa: F401,E402
from tfteach.eager.tensor_spec import TensorSpec  # noqa: F401,E402
from tfteach.eager import namespaces as _eager_namespaces  # noqa: E402
random = _eager_namespaces.random_module()      # tf.random, tf.math, tf.compat (TF 1.15 has them)
math = _eager_namespaces.math_module()
compat = _eager_namespaces.compat_module()
# -- end eager --------------------------------------------------------------------------------
from tfteach._removed import removed_name_error as _removed_name_error  # noqa: E402
from tfteach import _lazy_names  # noqa: E402

newaxis = None
# The TensorFlow API level tfteach reproduces (the notes print `tf.__version__`);
# the package's own version is `tfteach.PACKAGE_VERSION`.
VERSION = __version__ = "1.15.0"
PACKAGE_VERSION = "0.1.0"


def __getattr__(name):
    # The namespaces a tiny graph does not need (tf.train, tf.data, tf.image, tf.summary,
    # tf.estimator, the protobuf messages ...) are imported on first use (_lazy_names.py):
    # `import tfteach` stays quick and never loads protobuf or tensorboard.
    if name not in _lazy_names.LAZY:
        raise _removed_name_error(__name__, name)
    value = globals()[name] = _lazy_names.load(name)
    return value


def __dir__():
    return sorted(set(globals()) | set(_lazy_names.LAZY))


def load_ipython_extension(ipython):
    """`%load_ext tfteach`: the %%tfgraph magic and the per-cell memory hooks."""
    from tfteach.notebook import load_ipython_extension as load
    load(ipython)


def unload_ipython_extension(ipython):
    from tfteach.notebook import unload_ipython_extension as unload
    unload(ipython)
