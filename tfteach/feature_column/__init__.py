"""`tf.feature_column`: how raw features become model input (docs/estimator.md).

  columns.py  the columns (numeric, bucketized, vocabulary list, identity, indicator,
              embedding), with TF 1.15's names and argument checks;
  layers.py   input_layer and linear_model, with TF's variable names.
"""
from tfteach.feature_column.columns import (bucketized_column,  # noqa: F401
                                            categorical_column_with_identity,
                                            categorical_column_with_vocabulary_list,
                                            embedding_column, indicator_column,
                                            numeric_column)
from tfteach.feature_column.layers import input_layer, linear_model  # noqa: F401

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_vocabulary_list",
           "categorical_column_with_identity", "indicator_column", "embedding_column",
           "input_layer", "linear_model"]
