"""`tf.estimator.inputs`: input_fns that feed NumPy arrays or a pandas DataFrame."""
from tfteach.estimator.inputs.numpy_io import numpy_input_fn
from tfteach.estimator.inputs.pandas_io import pandas_input_fn

__all__ = ["numpy_input_fn", "pandas_input_fn"]
