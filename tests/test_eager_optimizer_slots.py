"""TF 1 optimizers on eager variables: eager names are not unique (two `tf.Variable(1.0)`
are both 'Variable:0'), so slots are keyed by the variable, not its name, as TF's
`_var_key` uses `_unique_id` eagerly. Expected values: the Momentum rule by hand."""
import numpy as np

from eager_helpers import eager, tf2  # noqa: F401 - fixtures


def test_same_named_eager_variables_get_their_own_slots(tf2):
    tf = tf2
    a, b = tf.Variable(1.0), tf.Variable(5.0)
    assert a.name == b.name == "Variable:0"
    opt = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = a * 2.0 + b * 3.0
        opt.apply_gradients(zip(tape.gradient(loss, [a, b]), [a, b]))
    assert opt.get_slot(a, "momentum") is not opt.get_slot(b, "momentum")
    # accumulation = 0.9 * accumulation + g; w -= 0.1 * accumulation
    np.testing.assert_allclose(float(opt.get_slot(a, "momentum").numpy()), 2.0 * 1.9)
    np.testing.assert_allclose(float(opt.get_slot(b, "momentum").numpy()), 3.0 * 1.9)
    np.testing.assert_allclose(float(a.numpy()), 1.0 - 0.1 * (2.0 + 3.8), rtol=1e-6)
    np.testing.assert_allclose(float(b.numpy()), 5.0 - 0.1 * (3.0 + 5.7), rtol=1e-6)
