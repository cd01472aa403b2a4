"""`tf.estimator`: the TF 1.x high-level training API (docs/estimator.md).

  estimator.py        Estimator: train / evaluate / predict a model_fn in model_dir;
  model_fn.py         EstimatorSpec and ModeKeys;
  run_config.py       RunConfig;
  inputs/             numpy_input_fn, pandas_input_fn;
  canned/             LinearClassifier/Regressor, DNNClassifier/Regressor and their heads.
The sessions, hooks and checkpoints underneath are tf.train's (monitored_session.py,
basic_session_run_hooks.py, Saver). TPUEstimator and tf.distribute are not built.
"""
from tfteach.estimator.estimator import Estimator
from tfteach.estimator.model_fn import EstimatorSpec, ModeKeys
from tfteach.estimator.run_config import RunConfig
from tfteach.estimator.warm_starting import WarmStartSettings
from tfteach.estimator.training import EvalSpec, TrainSpec, train_and_evaluate
from tfteach.estimator import inputs
from tfteach.estimator.canned import (DNNClassifier, DNNRegressor, LinearClassifier,  # noqa: F401
                                      LinearRegressor)
from tfteach.train.session_run_hook import (SessionRunArgs, SessionRunContext,  # noqa: F401
                                            SessionRunHook, SessionRunValues)
from tfteach.train.basic_session_run_hooks import (CheckpointSaverHook,  # noqa: F401
                                                   LoggingTensorHook, StopAtStepHook)
from tfteach.train.feed_and_final_hooks import FeedFnHook, FinalOpsHook  # noqa: F401

__all__ = ["DNNClassifier", "DNNRegressor", "LinearClassifier", "LinearRegressor",
           "Estimator", "EstimatorSpec", "ModeKeys", "RunConfig", "inputs",
           "SessionRunHook", "SessionRunArgs", "CheckpointSaverHook", "LoggingTensorHook",
           "StopAtStepHook", "WarmStartSettings", "TrainSpec", "EvalSpec",
           "train_and_evaluate", "FeedFnHook", "FinalOpsHook", "SessionRunContext",
           "SessionRunValues"]
