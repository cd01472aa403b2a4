"""`tf.sparse`: the SparseTensor namespace of TF 1.15 (the part tfteach has)."""
from tfteach.framework.sparse_tensor import SparseTensor, SparseTensorValue  # noqa: F401
from tfteach.ops.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from tfteach.ops.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401
