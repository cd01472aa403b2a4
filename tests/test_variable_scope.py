"""tf.variable_scope / tf.get_variable: naming, reuse rules and TF 1.15's error texts."""
import numpy as np
import pytest

import tfteach as tf


def test_get_variable_names_ops_and_default_initializers():
    with tf.variable_scope("foo") as scope:
        v = tf.get_variable("v", [2, 3])
        c = tf.constant(1.0)
    assert (scope.name, scope.original_name_scope) == ("foo", "foo/")
    assert v.name == "foo/v:0" and c.name == "foo/Const:0"
    assert v.initializer.inputs[1].op.name.startswith("foo/v/Initializer/random_uniform")
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[-3:] == ["foo/v/Assign", "foo/v/read", "foo/Const"]
    assert "foo/v" in names
    i = tf.get_variable("i", [2], dtype=tf.int32)
    assert i.initializer.inputs[1].op.name == "i/Initializer/zeros"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(i), [0, 0])
        limit = np.sqrt(6.0 / (2 + 3))           # glorot_uniform is the float default
        assert np.all(np.abs(sess.run(v)) <= limit)


def test_variable_names_ignore_name_scopes():
    with tf.variable_scope("outer"):
        with tf.name_scope("ns"):
            w = tf.get_variable("w", [1])
            c = tf.constant(1.0)
            plain = tf.Variable(1.0, name="plain")
    assert (w.name, w.op.name) == ("outer/w:0", "outer/w")
    assert c.name == "outer/ns/Const:0"
    assert plain.name == "outer/ns/plain:0"     # tf.Variable follows name scopes


def test_already_exists_error_shows_where_it_was_defined():
    with tf.variable_scope("foo"):
        tf.get_variable("v", [2])                                  # defined here
    with pytest.raises(ValueError) as info:
        with tf.variable_scope("foo"):
            tf.get_variable("v", [2])
    lines = str(info.value).splitlines()
    assert lines[0] == ("Variable foo/v already exists, disallowed. Did you mean to set "
                        "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:")
    assert lines[1] == ""
    assert lines[2].startswith('  File "') and "test_variable_scope.py" in lines[2]
    assert "# defined here" in lines[3]
    with pytest.raises(ValueError, match="^Variable foo/v already exists"):
        tf.get_variable("foo/v", [2])             # the full name from the root scope


def test_reuse_true_returns_existing_and_requires_existence():
    with tf.variable_scope("foo"):
        v = tf.get_variable("v", [2])
    with tf.variable_scope("foo", reuse=True):
        assert tf.get_variable("v") is v
        assert tf.get_variable("v", [2]) is v
        with pytest.raises(ValueError, match=r"^Variable foo/u does not exist, or was not "
                           r"created with tf.get_variable\(\). Did you mean to set "
                           r"reuse=tf.AUTO_REUSE in VarScope\?$"):
            tf.get_variable("u", [3])
        with pytest.raises(ValueError, match=r"^Trying to share variable foo/v, but specified "
                                             r"shape \(3,\) and found shape \(2,\).$"):
            tf.get_variable("v", [3])
        with pytest.raises(ValueError, match="^Trying to share variable foo/v, but specified "
                                             "dtype int32 and found dtype float32_ref.$"):
            tf.get_variable("v", [2], dtype=tf.int32)


def test_variable_made_with_tf_variable_cannot_be_reused():
    with tf.variable_scope("s"):
        tf.Variable(1.0, name="v")
    with tf.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match="^Variable s/v does not exist, or was not"):
            tf.get_variable("v", [])


def test_auto_reuse_creates_then_shares():
    with tf.variable_scope("bar", reuse=tf.AUTO_REUSE):
        x = tf.get_variable("x", initializer=tf.constant([1.0, 2.0]))
        assert tf.get_variable("x", [2]) is x
    for _ in range(3):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            y = tf.get_variable("y", [1])
    assert [v.name for v in tf.global_variables()] == ["bar/x:0", "shared/y:0"]
    assert y.name == "shared/y:0"


def test_reuse_variables_and_inheritance():
    with tf.variable_scope("outer") as outer:
        assert outer.reuse is False
        v = tf.get_variable("v", [1])
        tf.get_variable_scope().reuse_variables()
        assert tf.get_variable("v", [1]) is v
        with tf.variable_scope("inner") as inner:
            assert inner.name == "outer/inner" and inner.reuse is True
    with tf.variable_scope("outer", reuse=False) as again:
        assert again.reuse is False              # a new scope object: reuse not remembered
    assert tf.get_variable_scope().name == "" and tf.get_variable_scope().reuse is False


def test_reentering_a_scope_object_opens_a_new_name_scope():
    with tf.variable_scope("foo") as scope:
        v = tf.get_variable("v", [1])
    with tf.variable_scope(scope):
        c = tf.constant(1.0)
        assert tf.get_variable_scope().name == "foo"
    with tf.variable_scope(scope, reuse=True):
        d = tf.constant(1.0)
        assert tf.get_variable("v") is v
    assert (c.name, d.name) == ("foo_1/Const:0", "foo_2/Const:0")
    with tf.variable_scope("other"):
        with tf.variable_scope(scope) as back:   # jumps out of "other" for variables
            assert back.name == "foo"
            assert tf.constant(1.0).name == "other/foo/Const:0"


def test_default_name_is_made_unique():
    with tf.variable_scope(None, default_name="layer") as s1:
        a = tf.get_variable("a", [1])
    with tf.variable_scope(None, default_name="layer") as s2:
        b = tf.get_variable("a", [1])
    assert (s1.name, s2.name, a.name, b.name) == ("layer", "layer_1", "layer/a:0",
                                                  "layer_1/a:0")
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is "
                                        "required"):
        tf.variable_scope(None)


def test_new_variable_errors():
    with pytest.raises(ValueError, match=r"^Shape of a new variable \(v\) must be fully "
                                         r"defined, but instead was <unknown>.$"):
        tf.get_variable("v")
    with tf.variable_scope("foo"):
        with pytest.raises(ValueError, match=r"^Shape of a new variable \(foo/w\) must be "
                                             r"fully defined, but instead was \(2, \?\).$"):
            tf.get_variable("w", [2, None])
    with pytest.raises(ValueError, match="^If initializer is a constant, do not specify "
                                         "shape.$"):
        tf.get_variable("c", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="^The initializer passed is not valid"):
        tf.get_variable("z", initializer=tf.zeros_initializer())
    with pytest.raises(ValueError, match="^Initializer type '<dtype: 'int32'>' and explicit "
                                         "dtype '<dtype: 'float32'>' don't match.$"):
        tf.get_variable("d", initializer=3, dtype=tf.float32)
    assert tf.global_variables() == []


def test_initializer_values_tensors_and_callables():
    a = tf.get_variable("a", initializer=3)
    b = tf.get_variable("b", initializer=tf.constant([1.0, 2.0]))
    c = tf.get_variable("c", [2, 2], initializer=tf.ones_initializer())
    d = tf.get_variable("d", initializer=lambda: [4, 5])
    e = tf.get_variable("e", [3], initializer=tf.constant_initializer([1.0, 2.0]))
    assert a.dtype == tf.as_dtype("int32_ref") and a.initial_value.op.name == "a/initial_value"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([a, b, c, d, e])
    assert got[0] == 3
    np.testing.assert_array_equal(got[1], [1.0, 2.0])
    np.testing.assert_array_equal(got[2], np.ones((2, 2)))
    np.testing.assert_array_equal(got[3], [4, 5])
    np.testing.assert_array_equal(got[4], [1.0, 2.0, 2.0])     # padded with the last value


def test_scope_initializer_dtype_and_collections():
    with tf.variable_scope("s", initializer=tf.constant_initializer(7.0), dtype=tf.float64):
        v = tf.get_variable("v", [2])
        with tf.variable_scope("inner"):
            w = tf.get_variable("w", [1])                    # inherits both
    n = tf.get_variable("n", [1], trainable=False)
    m = tf.get_variable("m", [1], collections=["mine"])
    assert v.dtype.base_dtype == tf.float64 and w.dtype.base_dtype == tf.float64
    assert n not in tf.trainable_variables() and n in tf.global_variables()
    assert m not in tf.global_variables() and tf.get_collection("mine") == [m]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), [7.0])


def test_regularizer_adds_to_regularization_losses():
    with tf.variable_scope("r", regularizer=lambda t: tf.identity(t, name="l2")):
        v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
        tf.get_variable("u", [2], regularizer=tf.no_regularizer)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["r/v/Regularizer/l2:0"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(losses[0]), [1.0, 1.0])


def test_scopes_are_per_graph():
    with tf.variable_scope("a"):
        tf.get_variable("v", [1])
    g = tf.Graph()
    with g.as_default():
        assert tf.get_variable_scope().name == ""
        assert tf.get_variable("a/v", [1]).graph is g      # a new graph, a new store


def test_failed_scope_entry_leaves_no_scope_open():
    with pytest.raises(ValueError):
        with tf.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(ValueError):
        with tf.variable_scope("ok"):
            with tf.variable_scope(None, default_name="bad", reuse=True):
                pass
    assert tf.get_variable_scope().name == ""
    assert tf.constant(1.0).name == "Const:0"
    tf.reset_default_graph()         # raises if a graph was left on the default stack


# -- custom getters (TF 1.15's variable_scope(custom_getter=...)); expected values checked
#    against tf.compat.v1 in graph mode with ref variables ------------------------------
def test_custom_getter_of_a_scope_wraps_get_variable():
    calls = []

    def averaged(getter, name, *args, **kwargs):
        calls.append(name)
        return getter(name, *args, **kwargs) * 2.0

    v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
    with tf.variable_scope(tf.get_variable_scope(), reuse=True, custom_getter=averaged):
        doubled = tf.get_variable("v", [2])
    assert calls == ["v"]
    assert doubled.name == "mul:0"           # the getter runs outside any name scope
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 2.0])


def test_custom_getter_substitutes_moving_averages():
    # the idiom that evaluates a model with its ExponentialMovingAverage shadows
    v = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([v])
    with tf.variable_scope(tf.get_variable_scope(), reuse=True,
                           custom_getter=lambda getter, *a, **k: ema.average(getter(*a, **k))):
        shadow = tf.get_variable("w", [2])
    assert shadow is ema.average(v)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v, [3.0, 3.0]))
        sess.run(update)
        np.testing.assert_array_equal(sess.run(shadow), [2.0, 2.0])    # 0.5 * 1 + 0.5 * 3


def test_nested_custom_getters_run_inner_first_and_can_change_arguments():
    log = []

    def outer(getter, name, *args, **kwargs):
        log.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        log.append(("inner", name))
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    with tf.variable_scope("a", custom_getter=outer):
        with tf.variable_scope("b", custom_getter=inner):
            v = tf.get_variable("v", [2])
        w = tf.get_variable("w", [1], custom_getter=lambda getter, *a, **k: getter(*a, **k))
    assert log == [("inner", "a/b/v"), ("outer", "a/b/v")]     # w's own getter replaced outer
    assert v.name == "a/b/v:0"
    assert [x.name for x in tf.trainable_variables()] == ["a/w:0"]


def test_custom_getter_receives_every_argument_by_keyword():
    seen = []

    def keys(getter, **kwargs):
        seen.extend(sorted(kwargs))
        return getter(**kwargs)

    with tf.variable_scope("c", custom_getter=keys):
        u = tf.get_variable("u", [1])
    assert u.name == "c/u:0"
    assert seen == ["aggregation", "caching_device", "collections", "constraint", "dtype",
                    "initializer", "name", "partitioner", "regularizer", "reuse", "shape",
                    "synchronization", "trainable", "use_resource", "validate_shape"]


def test_custom_getter_must_be_callable():
    with pytest.raises(ValueError, match="Passed a custom_getter which is not callable: 3"):
        with tf.variable_scope("d", custom_getter=3):
            tf.get_variable("x", [1])
