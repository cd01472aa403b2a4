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
# -- rec (issue 18): tf.train.Example and its parts (io/example_protos.py) ---------------------
from tfteach.io.example_protos import (BytesList, Example, Feature, FeatureList,  # noqa: E402
                                       FeatureLists, Features, FloatList, Int64List,
                                       SequenceExample)
__all__ += ["BytesList", "Example", "Feature", "FeatureList", "FeatureLists", "Features",
            "FloatList", "Int64List", "SequenceExample"]
# -- end rec ----------------------------------------------------------------------------------
# -- est (issue 19): sessions with hooks (monitored_session.py), the hooks, Ftrl ------------
from tfteach.train.session_run_hook import (SessionRunArgs, SessionRunContext,  # noqa: E402
                                            SessionRunHook, SessionRunValues)
from tfteach.train.basic_session_run_hooks import (  # noqa: E402
    CheckpointSaverHook, LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
    SecondOrStepTimer, StepCounterHook, StopAtStepHook, SummarySaverHook)
from tfteach.train.feed_and_final_hooks import FeedFnHook, FinalOpsHook  # noqa: E402
from tfteach.train.monitored_session import (  # noqa: E402
    ChiefSessionCreator, MonitoredSession, MonitoredTrainingSession, Scaffold, SessionCreator,
    SingularMonitoredSession)
from tfteach.train.ftrl import FtrlOptimizer  # noqa: E402
__all__ += ["SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues",
            "CheckpointSaverHook", "LoggingTensorHook", "NanLossDuringTrainingError",
            "NanTensorHook", "SecondOrStepTimer", "StepCounterHook", "StopAtStepHook",
            "SummarySaverHook", "MonitoredSession", "MonitoredTrainingSession", "Scaffold",
            "SingularMonitoredSession", "SessionCreator", "ChiefSessionCreator",
            "FtrlOptimizer", "FeedFnHook", "FinalOpsHook"]
# -- end est ----------------------------------------------------------------------------------
# -- queues (issue 18, helper q): queue runners, Coordinator, input producers, batching --
from tfteach.train.coordinator import Coordinator, LooperThread  # noqa: E402
from tfteach.train.input import (batch, batch_join, input_producer,  # noqa: E402
                                 limit_epochs, match_filenames_once, maybe_batch,
                                 maybe_shuffle_batch, range_input_producer, shuffle_batch,
                                 shuffle_batch_join, slice_input_producer,
                                 string_input_producer)
from tfteach.train.queue_runner import (QueueRunner, add_queue_runner,  # noqa: E402
                                        start_queue_runners)
from tfteach.train import queue_runner  # noqa: E402 (tf.train.queue_runner.QueueRunner)
__all__ += ["Coordinator", "LooperThread", "QueueRunner", "add_queue_runner", "queue_runner",
            "start_queue_runners", "batch", "batch_join", "shuffle_batch",
            "shuffle_batch_join", "maybe_batch", "maybe_shuffle_batch", "input_producer",
            "string_input_producer", "range_input_producer", "slice_input_producer",
            "limit_epochs", "match_filenames_once"]
# -- end queues --------------------------------------------------------------------------
# -- object-based checkpoints (issue 19, helper eager: train/object_checkpoint.py) ----------
from tfteach.train.object_checkpoint import Checkpoint, CheckpointManager  # noqa: E402
__all__ += ["Checkpoint", "CheckpointManager"]
