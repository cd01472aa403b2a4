"""`tf.estimator.RunConfig`: where and how often an Estimator saves, logs and summarizes.

Defaults are TF 1.15's: a checkpoint every 600 seconds (unless save_checkpoints_steps is
given), the last 5 kept, summaries and the `global_step/sec` / loss log every 100 steps.
The cluster properties describe the only cluster tfteach has: one local chief worker
(no parameter servers, no `tf.distribute`; see docs/estimator.md).
"""
import copy

__all__ = ["RunConfig", "get_default_session_config"]

_USE_DEFAULT = object()
_DEFAULT_SAVE_CHECKPOINTS_SECS = 600


class RunConfig:
    """The run configuration of an Estimator (immutable; `replace` makes a new one)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, \
                _DEFAULT_SAVE_CHECKPOINTS_SECS
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("Can not specify both save_checkpoints_steps and "
                             "save_checkpoints_secs.")
        if train_distribute is not None or eval_distribute is not None:
            raise ValueError("tfteach runs on one local worker: tf.distribute strategies "
                             "are explained in lesson 35, not built (train_distribute / "
                             "eval_distribute must be None).")
        # TF 1.15's attributes in its order: an Estimator logs vars(config) ("Using config").
        self._model_dir = model_dir
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = None
        self._device_fn = device_fn
        self._protocol = protocol
        self._eval_distribute = None
        self._experimental_distribute = experimental_distribute
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        # The one local worker (TF reads these from TF_CONFIG).
        self._service = None
        self._cluster_spec = ClusterSpec()
        self._task_type = "worker"
        self._task_id = 0
        self._global_id_in_cluster = 0
        self._master = ""
        self._evaluation_master = ""
        self._is_chief = True
        self._num_ps_replicas = 0
        self._num_worker_replicas = 1

    _REPLACEABLE = ("model_dir", "tf_random_seed", "save_summary_steps",
                    "save_checkpoints_steps", "save_checkpoints_secs", "session_config",
                    "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                    "log_step_count_steps", "device_fn", "protocol",
                    "session_creation_timeout_secs")

    def replace(self, **kwargs):
        """A copy with the given properties changed (TF's ValueError for others)."""
        for key in kwargs:
            if key not in self._REPLACEABLE:
                raise ValueError("{} is not supported by RunConfig.replace(). Allowed "
                                 "properties are {}".format(key, sorted(self._REPLACEABLE)))
        new = copy.deepcopy(self)
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs \
                and kwargs["save_checkpoints_steps"] is not None:
            new._save_checkpoints_secs = None
        if "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs \
                and kwargs["save_checkpoints_secs"] is not None:
            new._save_checkpoints_steps = None
        for key, value in kwargs.items():
            setattr(new, "_" + key, value)
        if new._save_checkpoints_steps is not None and new._save_checkpoints_secs is not None:
            raise ValueError("Can not specify both save_checkpoints_steps and "
                             "save_checkpoints_secs.")
        return new

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    session_creation_timeout_secs = property(
        lambda self: self._session_creation_timeout_secs)
    # The one local worker.
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs)
    service = property(lambda self: self._service)
    cluster_spec = property(lambda self: self._cluster_spec)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    global_id_in_cluster = property(lambda self: self._global_id_in_cluster)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)
    is_chief = property(lambda self: self._is_chief)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)


class ClusterSpec:
    """The empty cluster of a local run (TF's `ClusterSpec({})`: no jobs, false)."""

    def as_dict(self):
        return {}

    @property
    def jobs(self):
        return []

    def __bool__(self):
        return False


def get_default_session_config():
    """TF 1.15's session config of an Estimator given none: soft placement, one round
    of graph rewrites (what `Using config` prints as '_session_config')."""
    from tfteach.runtime.config import ConfigProto
    config = ConfigProto(allow_soft_placement=True)
    config.graph_options.rewrite_options.meta_optimizer_iterations = 1     # ONE
    return config
