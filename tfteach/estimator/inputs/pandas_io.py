"""`tf.estimator.inputs.pandas_input_fn`: numpy_input_fn over a DataFrame's columns.

As TF 1.15: `x` a DataFrame, `y` a Series (or DataFrame) with the same index; the
features are the columns by name. Needs pandas (TF's TypeError without it).
"""
from tfteach.estimator.inputs.numpy_io import numpy_input_fn

__all__ = ["pandas_input_fn"]


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    try:
        import pandas as pd
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed")
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean "
                         "(it is recommended to set it as True for training); "
                         "got {}".format(shuffle))
    if y is not None:
        if target_column in x:
            raise ValueError("Cannot use name %s for target column: DataFrame already has "
                             "a column with that name: %s" % (target_column, x.columns))
        if not (x.index == y.index).all():
            raise ValueError("Index for x and y are mismatched.\nIndex for x: %s\n"
                             "Index for y: %s\n" % (x.index, y.index))
    features = {name: x[name].values for name in x.columns}
    labels = None
    if isinstance(y, pd.DataFrame):
        labels = {name: y[name].values for name in y.columns}
    elif y is not None:
        labels = y.values
    return numpy_input_fn(features, labels, batch_size=batch_size, num_epochs=num_epochs,
                          shuffle=shuffle, queue_capacity=queue_capacity,
                          num_threads=num_threads)
