"""`tf.feature_column` (docs/estimator.md)."""
