"""`tf.train`: optimizers, the global step, learning-rate schedules, moving averages.

Each idea lives in its own module (see docs/training.md):
  - optimizer: the Optimizer base class (compute_gradients / apply_gradients / minimize);
  - gradient_descent, momentum, adagrad, rmsprop, adam, adadelta: the optimizers, each
    one fused `Apply*` op per variable (ops/training_ops.py);
  - slot_creator: the optimizers' per-variable state (`W/Momentum`, `W/Adam`, ...);
  - training_util: the global step;
  - learning_rate_decay: schedules built from ops (exponential_decay, ...);
  - moving_averages: ExponentialMovingAverage;
  - saver, checkpoint_management, checkpoint_utils: tf.train.Saver, the `checkpoint`
    state file, and reading checkpoints without a graph (docs/saving.md).
"""
from tfteach.train.adadelta import AdadeltaOptimizer
from tfteach.train.adagrad import AdagradOptimizer
from tfteach.train.adam import AdamOptimizer
from tfteach.train.checkpoint_management import (checkpoint_exists, generate_checkpoint_state_proto,
                                                 get_checkpoint_mtimes, get_checkpoint_state,
                                                 latest_checkpoint, remove_checkpoint,
                                                 update_checkpoint_state)
from tfteach.train.checkpoint_utils import (NewCheckpointReader, init_from_checkpoint,
                                            list_variables, load_checkpoint, load_variable)
from tfteach.train.gradient_descent import GradientDescentOptimizer
from tfteach.train.learning_rate_decay import (exponential_decay, inverse_time_decay,
                                               natural_exp_decay, piecewise_constant,
                                               piecewise_constant_decay, polynomial_decay)
from tfteach.train.momentum import MomentumOptimizer
from tfteach.train.moving_averages import ExponentialMovingAverage
from tfteach.train.optimizer import Optimizer
from tfteach.train.rmsprop import RMSPropOptimizer
from tfteach.train.saver import Saver
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
           "Saver", "CheckpointState", "checkpoint_exists", "generate_checkpoint_state_proto",
           "get_checkpoint_mtimes", "get_checkpoint_state", "latest_checkpoint",
           "remove_checkpoint", "update_checkpoint_state", "NewCheckpointReader",
           "list_variables", "load_checkpoint", "load_variable", "init_from_checkpoint",
           "write_graph", "export_meta_graph", "import_meta_graph", "summary_iterator"]
from tfteach.io.bundle_protos import CheckpointState  # noqa: E402
# -- object-based checkpoints (issue 19, helper eager: train/object_checkpoint.py) ----------
from tfteach.train.object_checkpoint import Checkpoint, CheckpointManager  # noqa: E402
__all__ += ["Checkpoint", "CheckpointManager"]
