"""`tf.contrib.layers.optimize_loss` (TF 1.15): a training op in one call, as note 004's
LSTM Estimator uses it.

It builds, in the variable scope `OptimizeLoss`: the UPDATE_OPS as dependencies of the
loss, a `learning_rate` variable (for a float rate), the optimizer (a name, a class, an
instance or a function of the rate), the gradients of the trainable variables
(optionally multiplied, clipped by global norm or a function), the summaries asked for
(default `loss`, `learning_rate`, `global_norm/gradient_norm`), and `apply_gradients`
incrementing the global step. It returns the loss, computed after the update ran.
Not built: gradient_noise_scale.
"""
__all__ = ["optimize_loss", "OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES"]

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _optimizer_classes():
    import tfteach as tf
    return {"Adagrad": tf.train.AdagradOptimizer, "Adam": tf.train.AdamOptimizer,
            "Ftrl": tf.train.FtrlOptimizer,
            "Momentum": lambda learning_rate: tf.train.MomentumOptimizer(learning_rate,
                                                                         momentum=0.9),
            "RMSProp": tf.train.RMSPropOptimizer, "SGD": tf.train.GradientDescentOptimizer}


OPTIMIZER_CLS_NAMES = ("Adagrad", "Adam", "Ftrl", "Momentum", "RMSProp", "SGD")


def _learning_rate(learning_rate):
    import tfteach as tf
    if learning_rate is None:
        return None
    if isinstance(learning_rate, tf.Tensor) and learning_rate.get_shape().ndims == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError("Invalid learning_rate %s." % learning_rate)
        return tf.get_variable("learning_rate", [], trainable=False,
                               initializer=tf.constant_initializer(learning_rate))
    raise ValueError("Learning rate should be 0d Tensor or float. Got %s of type %s"
                     % (str(learning_rate), str(type(learning_rate))))


def _make_optimizer(optimizer, lr, learning_rate):
    import tfteach as tf
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "string (%s)." % optimizer)
        classes = _optimizer_classes()
        if optimizer not in classes:
            raise ValueError("Optimizer name should be one of [%s], you provided %s."
                             % (", ".join(OPTIMIZER_CLS_NAMES), optimizer))
        return classes[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, tf.train.Optimizer):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "class (%s)." % optimizer)
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, tf.train.Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, tf.train.Optimizer):
            raise ValueError("Unrecognized optimizer: function should return subclass of "
                             "Optimizer. Got %s." % str(opt))
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, "
                     "instance of subclass of Optimizer or function with one argument. "
                     "Got %s." % str(optimizer))


def _multiply_gradients(gradients, multipliers):
    import tfteach as tf
    result = []
    for grad, var in gradients:
        key = var if var in multipliers else var.op.name
        if grad is not None and key in multipliers:
            grad = grad * tf.constant(multipliers[key], dtype=grad.dtype)
        result.append((grad, var))
    return result


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """The loss, computed after one training step of `optimizer` on it (TF 1.15)."""
    import tfteach as tf
    loss = tf.convert_to_tensor(loss)
    if loss.shape.ndims not in (None, 0):
        raise ValueError("Expected scalar shape for %s, saw shape: %s."
                         % (loss.name, loss.shape))
    if global_step is None:
        global_step = tf.train.get_global_step()
    else:
        tf.train.assert_global_step(global_step)
    if gradient_noise_scale is not None:
        raise NotImplementedError("tfteach's optimize_loss adds no gradient noise.")
    with tf.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
        if update_ops:
            with tf.control_dependencies(list(update_ops)):
                loss = tf.identity(loss)
        lr = _learning_rate(learning_rate)
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        for summ in summaries:
            if summ not in OPTIMIZER_SUMMARIES:
                raise ValueError("Summaries should be one of [%s], you provided %s."
                                 % (", ".join(OPTIMIZER_SUMMARIES), summ))
        if lr is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
        if lr is not None and "learning_rate" in summaries:
            tf.summary.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr, learning_rate)
        if variables is None:
            variables = tf.trainable_variables()
        gradients = opt.compute_gradients(loss, variables)
        if gradient_multipliers is not None:
            gradients = _multiply_gradients(gradients, gradient_multipliers)
        present = [g for g, _ in gradients if g is not None]
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            tf.summary.scalar("global_norm/gradient_norm", tf.global_norm(present))
        if isinstance(clip_gradients, float):
            clipped, _ = tf.clip_by_global_norm(present, clip_gradients)
            clipped = iter(clipped)
            gradients = [(next(clipped) if g is not None else None, v) for g, v in gradients]
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError("Unknown type %s for clip_gradients" % type(clip_gradients))
        if "loss" in summaries:
            tf.summary.scalar("loss", loss)
        for grad, var in gradients:
            if grad is None:
                continue
            var_name = var.name.replace(":", "_")
            if "gradients" in summaries:
                tf.summary.histogram("gradients/%s" % var_name, grad)
            if "gradient_norm" in summaries:
                tf.summary.scalar("gradient_norm/%s" % var_name, tf.global_norm([grad]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries or
                                           "gradient_norm" in summaries):
            tf.summary.scalar("global_norm/clipped_gradient_norm",
                              tf.global_norm([g for g, _ in gradients if g is not None]))
        grad_updates = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None,
            name="train")
        with tf.control_dependencies([grad_updates]):
            return tf.identity(loss)
