"""`tf.metrics`: streaming evaluation metrics of TF 1.15 (docs/metrics.md).

Each metric returns `(value, update_op)` and keeps its running state in local variables
(collections LOCAL_VARIABLES and METRIC_VARIABLES): run `tf.local_variables_initializer()`
first, run `update_op` once per batch, read `value` at the end.

- mean_metrics:     mean, accuracy, mean_squared_error, mean_absolute_error
- confusion_counts: true_positives, false_positives, false_negatives, true_negatives,
                    precision, recall
- auc:              auc (ROC or PR, TF's thresholds and summation methods)
- mean_iou:         mean_iou (and the confusion_matrix it accumulates)
"""
from tfteach.metrics.auc import auc  # noqa: F401
from tfteach.metrics.confusion_counts import (false_negatives, false_positives,  # noqa: F401
                                              precision, recall, true_negatives,
                                              true_positives)
from tfteach.metrics.mean_iou import mean_iou  # noqa: F401
from tfteach.metrics.mean_metrics import (accuracy, mean, mean_absolute_error,  # noqa: F401
                                          mean_squared_error)

__all__ = ["accuracy", "auc", "false_negatives", "false_positives", "mean",
           "mean_absolute_error", "mean_iou", "mean_squared_error", "precision", "recall",
           "true_negatives", "true_positives"]
