"""The dtypes TensorFlow 1.15's NN op definitions accept (`nn_ops.cc`), in TF's order.

A TypeError prints the list exactly as TensorFlow does:
`Value passed to parameter 'features' has DataType int32 not in list of allowed values:
float16, bfloat16, float32, float64`.
"""
from tfteach.framework import convert
from tfteach.ops.typed_inputs import refuse_none

__all__ = ["FLOATS", "REAL_NUMBERS", "RELU_TYPES", "INDEX_TYPES", "check_dtype",
           "convert_checked"]

# Elu, Selu, Softplus, Softsign, LeakyRelu, Softmax, LogSoftmax, L2Loss, the xents.
FLOATS = "float16, bfloat16, float32, float64"
# Relu6 (TF's `realnumbertypes`).
REAL_NUMBERS = ("float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                "float16, uint32, uint64")
# Relu (`{realnumbertypes, qint8}`).
RELU_TYPES = REAL_NUMBERS + ", qint8"
# Sparse labels (`Tlabels`).
INDEX_TYPES = "int32, int64"


def check_dtype(dtype, allowed, input_name):
    """TF's TypeError when `dtype` is not in the comma-separated list `allowed`."""
    if dtype.base_dtype.name not in allowed.split(", "):
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of "
                        "allowed values: %s" % (input_name, dtype.base_dtype.name, allowed))


def convert_checked(value, input_name, allowed, dtype=None):
    """`value` as a tensor (named `input_name` if it becomes a Const), dtype checked."""
    refuse_none(value, input_name)
    tensor = convert.convert_to_tensor(value, dtype=dtype, name=input_name)
    check_dtype(tensor.dtype, allowed, input_name)
    return tensor
