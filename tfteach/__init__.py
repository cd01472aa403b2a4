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
from tfteach.ops.random_ops import *  # noqa: F401,F403
from tfteach.ops.reduction_ops import *  # noqa: F401,F403
from tfteach.ops.partition_ops import *  # noqa: F401,F403
from tfteach.ops.reverse_sequence_ops import *  # noqa: F401,F403
from tfteach.ops.sparse_ops import *  # noqa: F401,F403
from tfteach.ops.state_ops import *  # noqa: F401,F403
from tfteach.ops.variable_scope import *  # noqa: F401,F403
from tfteach.ops.variables import *  # noqa: F401,F403
from tfteach.runtime.config import (ConfigProto, GPUOptions, GraphOptions,  # noqa: F401
                                    OptimizerOptions, RunOptions)
from tfteach.runtime.run_metadata import RunMetadata  # noqa: F401
from tfteach.runtime.session import (InteractiveSession, Session,  # noqa: F401
                                     get_default_session)
from tfteach import contrib, examples, layers, losses, metrics, nn, train  # noqa: F401,E402
from tfteach.metrics.mean_iou import confusion_matrix  # noqa: F401,E402
from tfteach import config, test  # noqa: F401,E402 (devices and memory; tf.test)
from tfteach import dtypes  # noqa: F401,E402 (tf.dtypes: the dtypes, cast, complex)
from tfteach.losses.safe_div import div_no_nan  # noqa: F401,E402
from tfteach import app, gfile, logging  # noqa: F401,E402 (tf.app, tf.gfile, tf.logging)
flags = app.flags  # TF 1.15's tf.flags, the same module as tf.app.flags
from tfteach._removed import removed_name_error as _removed_name_error
# Graphs as data (framework/graph_def.py, importer.py, graph_util.py): TF's protobufs.
from tfteach.framework.importer import import_graph_def  # noqa: F401,E402
from tfteach.framework.tensor_proto import make_ndarray, make_tensor_proto  # noqa: F401,E402
from tfteach.framework import graph_util  # noqa: F401,E402
from tfteach.io.tf_protos import (AttrValue, Event, GraphDef, HistogramProto,  # noqa: F401,E402
                                  MetaGraphDef, NodeDef, SessionLog, Summary,
                                  SummaryMetadata, TensorInfo)
from tfteach import summary  # noqa: F401,E402 (tf.summary: summary ops, FileWriter)
# -- rec (issue 18): SparseTensor, TFRecord, Example, parsing --------------------------------
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401,E402
from tfteach import sparse  # noqa: F401,E402 (tf.sparse)
from tfteach import python_io  # noqa: F401,E402 (tf.python_io: TFRecord files)
from tfteach import io  # noqa: F401,E402 (tf.io: the public names come from io_api.py)
from tfteach.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: F401,E402,E501
                                        VarLenFeature)
from tfteach.ops.parsing_ops import (parse_example, parse_single_example,  # noqa: F401,E402
                                     parse_single_sequence_example)
from tfteach.ops.decode_ops import decode_csv, decode_raw  # noqa: F401,E402
from tfteach.ops.tensor_serialization import parse_tensor, serialize_tensor  # noqa: F401,E402
# -- end rec ----------------------------------------------------------------------------------
# -- tf.data (issue 18, helper data): Dataset, iterators, file datasets ---------------
from tfteach import data  # noqa: F401,E402
# -- end data ---------------------------------------------------------------------------
# tf.image (issue 18, image): codecs, resizes, crops, flips, colours, boxes; tf.random_crop
from tfteach import image  # noqa: F401,E402
from tfteach.image.crops import random_crop  # noqa: F401,E402
# -- est (issue 19): tf.estimator and tf.feature_column ------------------------------
from tfteach import estimator, feature_column  # noqa: F401,E402
# -- end est ----------------------------------------------------------------------------
# -- queues (issue 18, helper q): queues, readers, queue runners ---------------------
from tfteach.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue,  # noqa: F401,E402
                                       PriorityQueue, QueueBase, RandomShuffleQueue)
from tfteach.ops.reader_ops import (FixedLengthRecordReader, ReaderBase,  # noqa: F401,E402
                                    TextLineReader, TFRecordReader, WholeFileReader,
                                    matching_files)
from tfteach.ops.count_up_to_op import count_up_to  # noqa: F401,E402
from tfteach import queue  # noqa: F401,E402 (tf.queue: the queue classes)
# -- end queues --------------------------------------------------------------------------

# -- eager execution (issue 19, helper eager: tfteach/eager/, docs/eager.md) ---------------
from tfteach.eager.context import (enable_eager_execution, executing_eagerly,  # noqa: F401,E402
                                   enable_v2_behavior, disable_eager_execution)
from tfteach.eager.tape import GradientTape  # noqa: F401,E402
from tfteach.eager.function import function  # noqa: F401,E402
from tfteach.eager.module import Module  # noqa: F401,E402
from tfteach.eager.tensor_spec import TensorSpec  # noqa: F401,E402
from tfteach.eager import namespaces as _eager_namespaces  # noqa: E402
random = _eager_namespaces.random_module()      # tf.random, tf.math, tf.compat (TF 1.15 has them)
math = _eager_namespaces.math_module()
compat = _eager_namespaces.compat_module()
# -- end eager --------------------------------------------------------------------------------

newaxis = None
# The TensorFlow API level tfteach reproduces (the notes print `tf.__version__`);
# the package's own version is `tfteach.PACKAGE_VERSION`.
VERSION = __version__ = "1.15.0"
PACKAGE_VERSION = "0.1.0"


def __getattr__(name):
    raise _removed_name_error(__name__, name)


def load_ipython_extension(ipython):
    """`%load_ext tfteach`: the %%tfgraph magic and the per-cell memory hooks."""
    from tfteach.notebook import load_ipython_extension as load
    load(ipython)


def unload_ipython_extension(ipython):
    from tfteach.notebook import unload_ipython_extension as unload
    unload(ipython)
# -- tf.keras (issue 19, helper keras): the high-level API, in graph mode --------------
from tfteach import keras  # noqa: F401,E402
