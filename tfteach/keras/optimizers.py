"""`tf.keras.optimizers`: SGD (momentum, nesterov), Adam, RMSprop, Adagrad.

Each builds its update as ordinary ops on its slot variables (visible in %%tfgraph),
with TF 1.15's Keras (OptimizerV2) defaults and formulas:

    SGD      lr=0.01   v = momentum*v - lr*g;  w += v   (nesterov: w += momentum*v - lr*g)
    Adam     lr=0.001  beta_1=0.9 beta_2=0.999 epsilon=1e-7;
             lr_t = lr*sqrt(1-beta_2^t)/(1-beta_1^t);  w -= lr_t*m/(sqrt(v)+epsilon)
    RMSprop  lr=0.001  rho=0.9 epsilon=1e-7;  ms = rho*ms + (1-rho)*g^2 (from zeros);
             w -= lr*g/(sqrt(ms)+epsilon)
    Adagrad  lr=0.001  initial_accumulator_value=0.1 epsilon=1e-7;
             acc += g^2;  w -= lr*g/(sqrt(acc)+epsilon)

`lr=` is accepted as the old name of `learning_rate`; `optimizer.lr` is the learning
rate's float32 variable (`<name>/learning_rate`), which each step reads, so
`K.set_value(optimizer.lr, ...)` and the learning-rate callbacks change the next
steps, as in TF 1.15. A `tf.train.Optimizer` can be
given to `compile` too (its `minimize` is used), as TF 1.15 allowed.

In a `tf.train.Checkpoint` they are saved as TF 1.15's (OptimizerV2, today's
`tf_keras.optimizers.legacy`) are: `iter` and the hyperparameters (`learning_rate`,
`decay`, `beta_1`, ...) as the optimizer's variables, each slot under the variable it
belongs to (`model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/...`).
"""
import numpy as np

import tfteach as tf
from tfteach.keras.serialization import accepted_kwargs, deserialize

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "Adagrad", "get", "serialize"]


class _Hyper:
    """A hyperparameter attribute (`opt.learning_rate`): a Python float until a
    checkpoint needs it as a variable (TF's `_set_hyper`); from then on the variable
    holds it, so restoring the variable changes what the next step uses."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        try:
            value = obj.__dict__["_hyper"][self.name]
        except KeyError:
            raise AttributeError("'%s' object has no attribute '%s'"
                                 % (type(obj).__name__, self.name)) from None
        if isinstance(value, float):
            return value
        from tfteach.keras import backend       # a graph's variable: in its Session
        return float(backend.get_value(value))

    def __set__(self, obj, value):
        hyper = obj.__dict__.setdefault("_hyper", {})
        if self.name in hyper and not isinstance(hyper[self.name], float):
            from tfteach.keras import backend
            backend.set_value(hyper[self.name], np.float32(value))
        else:
            hyper[self.name] = float(value)


class Optimizer:
    _defaults = {}
    learning_rate = _Hyper()
    decay = _Hyper()
    _hyper_names = ("learning_rate", "decay")   # TF's `_set_hyper` ones, checkpointed

    def __init__(self, name, learning_rate=0.001, clipnorm=None, clipvalue=None,
                 decay=0., **kwargs):
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        if kwargs:
            raise TypeError("Unexpected keyword argument passed to optimizer: "
                            + str(next(iter(kwargs))))
        self._name = name
        self.learning_rate = float(learning_rate)
        self.clipnorm, self.clipvalue, self.decay = clipnorm, clipvalue, float(decay)
        self.iterations = None
        self._slots = {}              # (id(variable), slot name) -> slot variable
        self._slot_order = []         # [(slot name, variable)] in creation order

    @property
    def lr(self):
        """The learning rate as TF 1.15's `optimizer.lr`: a float32 variable, which
        every step reads, so `K.set_value(model.optimizer.lr, 0.01)` (and the
        LearningRateScheduler / ReduceLROnPlateau callbacks) change the next steps."""
        return self._hyper_variable("learning_rate")

    @lr.setter
    def lr(self, value):
        self.learning_rate = value

    def _slot(self, variable, name, initial=0.):
        key = (id(variable), name)
        if key not in self._slots:
            shape = variable.get_shape().as_list()
            dtype = variable.dtype.base_dtype
            scope = variable.name.split(":")[0] + "/" + self._name
            with tf.name_scope(None), tf.name_scope(scope):     # 'dense/kernel/Adam/m'
                slot = tf.Variable(lambda: tf.fill(shape, tf.cast(initial, dtype)),
                                   name=name, trainable=False)
            self._slots[key] = slot
            self._slot_order.append((name, variable))
        return self._slots[key]

    _slot_names = ()          # the slots each variable gets, in Keras' order

    @property
    def weights(self):
        """Keras' order (what HDF5 files store): the step counter, then each kind of
        slot for all variables in turn (Adam: every m, then every v)."""
        names = []
        for name, _ in self._slot_order:
            if name not in names:
                names.append(name)
        ordered = [self._slots[(id(var), name)] for name in names
                   for slot_name, var in self._slot_order if slot_name == name]
        return ([self.iterations] if self.iterations is not None else []) + ordered

    def _create_all_weights(self, var_list):
        """The step counter and every slot now (load_model restores their values)."""
        with tf.name_scope(self._name):
            self._make_iterations()
            for name in self._slot_names:
                for var in var_list:
                    self._slot(var, name, self._slot_initial(name))

    def _slot_initial(self, name):
        return 0.

    def _make_iterations(self):
        if self.iterations is None:
            with tf.name_scope(None):
                self.iterations = tf.Variable(0, dtype=tf.int64, name=self._name + "/iter",
                                              trainable=False)

    # -- tf.train.Checkpoint (train/object_checkpoint.py), as TF's OptimizerV2 ----------
    def _hyper_variable(self, name):
        """The hyperparameter `name` as a float32 variable (made on first need)."""
        value = self._hyper[name]
        if isinstance(value, float):
            from tfteach.ops.variables import _InitScope
            with _InitScope(tf.get_default_graph()), tf.name_scope(None):
                value = tf.Variable(np.float32(value), name=self._name + "/" + name,
                                    trainable=False)
            self._hyper[name] = value
        return value

    def _checkpoint_dependencies(self):
        """The optimizer's own variables once a step made them: `iter`, then the
        hyperparameters (TF creates both at the first step)."""
        if self.iterations is None:
            return []
        return [("iter", self.iterations)] + [(name, self._hyper_variable(name))
                                              for name in self._hyper_names]

    def _checkpoint_slots(self, candidates):
        """[(slot name, variable, slot)] for the `candidates` that have slots: TF's
        `.OPTIMIZER_SLOT` entries."""
        return [(name, var, self._slots[(id(var), name)]) for name in self._slot_names
                for var in candidates if (id(var), name) in self._slots]

    def _restore_checkpoint_slot(self, var, slot_name, value):
        """Sets a slot of `var`, creating it first if no step made it yet; None for a
        slot this optimizer does not have (left unresolved, as TF leaves it)."""
        if slot_name not in self._slot_names:
            return None
        slot = self._slot(var, slot_name, self._slot_initial(slot_name))
        slot.assign(np.asarray(value).astype(slot.dtype.base_dtype.np))
        return slot

    def _restore_checkpoint_dependency(self, name, value):
        """`iter` or a hyperparameter restored before this optimizer's first step."""
        if name == "iter":
            self._make_iterations()
            return self.iterations
        if name in self._hyper_names:
            return self._hyper_variable(name)
        return None

    def get_weights(self):
        from tfteach.keras import backend
        return backend.batch_get_value(self.weights)

    def set_weights(self, values):
        from tfteach.keras import backend
        params = self.weights
        if len(params) != len(values) or any(
                tuple(p.get_shape().as_list()) != np.shape(v)
                for p, v in zip(params, values)):
            raise ValueError("Optimizer weights do not match: %d given for %d (%s)"
                             % (len(values), len(params), [p.name for p in params]))
        backend.batch_set_value(list(zip(params, values)))

    def get_gradients(self, loss, params):
        grads = tf.gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("An operation has `None` for gradient. Please make sure that "
                             "all of your ops have a gradient defined (i.e. are "
                             "differentiable). Common ops without gradient: K.argmax, "
                             "K.round, K.eval.")
        return self.clip(grads)

    def clip(self, grads):
        if self.clipnorm is not None:
            grads = [tf.clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            grads = [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def get_updates(self, loss, params):
        """The update ops of one training step (and the step counter's increment)."""
        grads = self.get_gradients(loss, params)
        return self.apply_gradients(zip(grads, params))

    def apply_gradients(self, grads_and_vars, name=None):
        grads_and_vars = list(grads_and_vars)
        with tf.name_scope(self._name):
            self._make_iterations()
            step = tf.cast(self.iterations, tf.float32) + 1.
            lr = tf.identity(self.lr)           # the variable: set_value changes it
            if self.decay:
                lr = lr / (1. + self.decay * (step - 1.))
            updates = []
            for grad, var in grads_and_vars:
                with tf.name_scope(var.op.name.replace("/", "_")):
                    updates.extend(self._update(var, grad, tf.cast(lr, grad.dtype), step))
            with tf.control_dependencies(updates):
                updates.append(tf.assign_add(self.iterations, 1))
        return updates

    def minimize(self, loss, var_list):
        return tf.group(*self.get_updates(loss, var_list))

    def get_config(self):
        config = {"name": self._name, "learning_rate": self.learning_rate,
                  "decay": self.decay}
        config.update({k: getattr(self, k) for k in self._defaults})
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**accepted_kwargs(cls, config))


class SGD(Optimizer):
    _defaults = {"momentum": 0., "nesterov": False}
    momentum = _Hyper()
    _hyper_names = ("learning_rate", "decay", "momentum")

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD",
                 **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    @property
    def _slot_names(self):
        return ("momentum",) if self.momentum else ()

    def _update(self, var, grad, lr, step):
        if not self.momentum:
            return [tf.assign_sub(var, lr * grad)]
        velocity = self._slot(var, "momentum")
        new_velocity = tf.assign(velocity, self.momentum * velocity - lr * grad)
        if self.nesterov:
            return [tf.assign_add(var, self.momentum * new_velocity - lr * grad)]
        return [tf.assign_add(var, new_velocity)]


class Adam(Optimizer):
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}
    beta_1, beta_2 = _Hyper(), _Hyper()
    _hyper_names = ("learning_rate", "decay", "beta_1", "beta_2")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not built in tfteach")
        self.beta_1, self.beta_2 = float(beta_1), float(beta_2)
        self.epsilon, self.amsgrad = float(epsilon), False

    _slot_names = ("m", "v")

    def _update(self, var, grad, lr, step):
        m, v = self._slot(var, "m"), self._slot(var, "v")
        lr_t = lr * tf.sqrt(1. - tf.pow(self.beta_2, step)) / (1. - tf.pow(self.beta_1,
                                                                             step))
        m_t = tf.assign(m, self.beta_1 * m + (1. - self.beta_1) * grad)
        v_t = tf.assign(v, self.beta_2 * v + (1. - self.beta_2) * tf.square(grad))
        return [tf.assign_sub(var, lr_t * m_t / (tf.sqrt(v_t) + self.epsilon))]


class RMSprop(Optimizer):
    _defaults = {"rho": 0.9, "momentum": 0., "epsilon": 1e-7, "centered": False}
    rho, momentum = _Hyper(), _Hyper()
    _hyper_names = ("learning_rate", "decay", "rho", "momentum")

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        if momentum or centered:
            raise NotImplementedError("RMSprop(momentum=..., centered=True) is not built "
                                      "in tfteach's Keras; use tf.train.RMSPropOptimizer")
        self.rho, self.epsilon = float(rho), float(epsilon)
        self.momentum, self.centered = 0., False

    _slot_names = ("rms",)

    def _update(self, var, grad, lr, step):
        ms = self._slot(var, "rms")
        ms_t = tf.assign(ms, self.rho * ms + (1. - self.rho) * tf.square(grad))
        return [tf.assign_sub(var, lr * grad / (tf.sqrt(ms_t) + self.epsilon))]


class Adagrad(Optimizer):
    _defaults = {"initial_accumulator_value": 0.1, "epsilon": 1e-7}

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        super().__init__(name, learning_rate, **kwargs)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = float(epsilon)

    _slot_names = ("accumulator",)

    def _slot_initial(self, name):
        return self.initial_accumulator_value

    def _update(self, var, grad, lr, step):
        acc = self._slot(var, "accumulator", self.initial_accumulator_value)
        acc_t = tf.assign_add(acc, tf.square(grad))
        return [tf.assign_sub(var, lr * grad / (tf.sqrt(acc_t) + self.epsilon))]


class TFOptimizer:
    """A `tf.train.Optimizer` given to compile: one `minimize` op per step."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.weights = []        # its slots are tf.train's: not saved in Keras files

    def get_updates(self, loss, params):
        return [self.optimizer.minimize(loss, var_list=params)]

    def clip(self, grads):
        return grads

    def apply_gradients(self, grads_and_vars):
        return self.optimizer.apply_gradients(list(grads_and_vars))

    def get_config(self):
        raise NotImplementedError("a tf.train optimizer cannot be saved in a Keras file")


_OBJECTS = {"sgd": SGD, "SGD": SGD, "adam": Adam, "Adam": Adam, "rmsprop": RMSprop,
            "RMSprop": RMSprop, "adagrad": Adagrad, "Adagrad": Adagrad}


def get(identifier):
    if isinstance(identifier, (Optimizer, TFOptimizer)):
        return identifier
    if isinstance(identifier, tf.train.Optimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, dict) and identifier.get("class_name") in _OBJECTS:
        # A saved config (maybe a newer Keras' with more keys): keep what is known here.
        cls = _OBJECTS[identifier["class_name"]]
        config = identifier.get("config") or {}
        known = set(cls._defaults) | {"learning_rate", "lr", "name", "clipnorm",
                                      "clipvalue", "decay"}
        return cls(**{k: v for k, v in config.items() if k in known and v is not None
                      and not (k == "decay" and not v)})
    return deserialize(identifier, _OBJECTS, "optimizer")


def serialize(optimizer):
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}
