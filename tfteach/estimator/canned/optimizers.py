"""The `optimizer` argument of canned Estimators: a name, an Optimizer, or a callable."""

__all__ = ["get_optimizer_instance"]


def _optimizer_classes():
    import tfteach as tf
    return {"Adagrad": tf.train.AdagradOptimizer, "Adam": tf.train.AdamOptimizer,
            "Ftrl": tf.train.FtrlOptimizer, "RMSProp": tf.train.RMSPropOptimizer,
            "SGD": tf.train.GradientDescentOptimizer}


def get_optimizer_instance(opt, learning_rate=None):
    """An Optimizer from a name (with `learning_rate`), an instance or a callable."""
    import tfteach as tf
    classes = _optimizer_classes()
    if isinstance(opt, str):
        if opt in classes:
            if learning_rate is None:
                raise ValueError("learning_rate must be specified when opt is string.")
            return classes[opt](learning_rate=learning_rate)
        raise ValueError("Unsupported optimizer name: {}. Supported names are: {}".format(
            opt, tuple(sorted(classes))))
    if callable(opt) and not isinstance(opt, tf.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tf.train.Optimizer):
        raise ValueError("The given object is not an Optimizer instance. Given: {}"
                         .format(opt))
    return opt
