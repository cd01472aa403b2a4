"""`tf.train`: optimizers, the global step, learning-rate schedules, moving averages.

Each idea lives in its own module (see docs/training.md):
  - optimizer: the Optimizer base class (compute_gradients / apply_gradients / minimize);
  - gradient_descent, momentum, adagrad, rmsprop, adam, adadelta: the optimizers, each
    one fused `Apply*` op per variable (ops/training_ops.py);
  - slot_creator: the optimizers' per-variable state (`W/Momentum`, `W/Adam`, ...);
  - training_util: the global step;
  - learning_rate_decay: schedules built from ops (exponential_decay, ...);
  - moving_averages: ExponentialMovingAverage.
"""
from tfteach.train.adadelta import AdadeltaOptimizer
from tfteach.train.adagrad import AdagradOptimizer
from tfteach.train.adam import AdamOptimizer
from tfteach.train.gradient_descent import GradientDescentOptimizer
from tfteach.train.learning_rate_decay import (exponential_decay, inverse_time_decay,
                                               natural_exp_decay, piecewise_constant,
                                               piecewise_constant_decay, polynomial_decay)
from tfteach.train.momentum import MomentumOptimizer
from tfteach.train.moving_averages import ExponentialMovingAverage
from tfteach.train.optimizer import Optimizer
from tfteach.train.rmsprop import RMSPropOptimizer
from tfteach.train.training_util import (assert_global_step, create_global_step,
                                         get_global_step, get_or_create_global_step,
                                         global_step)
from tfteach.train.graph_io import write_graph
from tfteach.framework.meta_graph import export_meta_graph, import_meta_graph
from tfteach.summary.summary_iterator import summary_iterator

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdagradOptimizer",
           "RMSPropOptimizer", "AdamOptimizer", "AdadeltaOptimizer",
           "ExponentialMovingAverage", "exponential_decay", "piecewise_constant",
           "piecewise_constant_decay", "polynomial_decay", "natural_exp_decay",
           "inverse_time_decay", "global_step", "get_global_step", "create_global_step",
           "get_or_create_global_step", "assert_global_step",
           "write_graph", "export_meta_graph", "import_meta_graph", "summary_iterator"]
