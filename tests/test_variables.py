"""tf.Variable: graph structure, per-Session values, initialisation, assign semantics."""
import numpy as np
import pytest

import tfteach as tf


def ops_of(graph=None):
    graph = graph or tf.get_default_graph()
    return [(op.name, op.type, [t.name for t in op.inputs]) for op in graph.get_operations()]


def has_tensor_operator(name):
    return getattr(tf.Tensor, name, None) is not None


# -- graph structure ---------------------------------------------------------------------
def test_variable_builds_tf1_ops_and_dtypes():
    v = tf.Variable([1.0, 2.0])
    assert ops_of() == [
        ("Variable/initial_value", "Const", []),
        ("Variable", "VariableV2", []),
        ("Variable/Assign", "Assign", ["Variable:0", "Variable/initial_value:0"]),
        ("Variable/read", "Identity", ["Variable:0"]),
    ]
    assert v.name == "Variable:0" and v.op.name == "Variable"
    assert v.dtype == tf.as_dtype("float32_ref") and v.dtype.base_dtype == tf.float32
    assert v.value().dtype == tf.float32           # expressions see the base dtype
    assert v.shape == tf.TensorShape([2]) and v.get_shape().as_list() == [2]
    assert repr(v) == "<tf.Variable 'Variable:0' shape=(2,) dtype=float32_ref>"
    assert v.initializer.name == "Variable/Assign"
    assert v.initial_value.name == "Variable/initial_value:0"
    assert v.graph is tf.get_default_graph()
    assert v.op.get_attr("shape") == tf.TensorShape([2])
    assert v.initializer.get_attr("validate_shape") is True


def test_names_are_made_unique_and_follow_name_scopes():
    a = tf.Variable(1.0)
    b = tf.Variable(1.0)
    c = tf.Variable(1.0, name="w")
    with tf.name_scope("layer"):
        d = tf.Variable(1.0, name="w")
    assert [a.name, b.name, c.name, d.name] == [
        "Variable:0", "Variable_1:0", "w:0", "layer/w:0"]


def test_callable_initial_value_goes_in_initializer_scope():
    v = tf.Variable(lambda: [1.0, 2.0, 3.0], name="w")
    assert v.initial_value.op.name == "w/Initializer/initial_value"
    assert v.shape.as_list() == [3]


def test_tensor_initial_value_is_used_directly():
    init = tf.constant([[1, 2]], name="start")
    v = tf.Variable(init)
    assert v.initial_value is init
    assert v.dtype == tf.as_dtype("int32_ref")


def test_dtype_argument_converts_the_initial_value():
    v = tf.Variable(1, dtype=tf.float32)
    assert v.dtype == tf.as_dtype("float32_ref")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(v) == np.float32(1.0)


def test_collections_global_trainable_and_custom():
    a = tf.Variable(1.0)
    b = tf.Variable(1.0, trainable=False)
    c = tf.Variable(1.0, collections=["mine"])
    d = tf.Variable(1.0, "S")        # TF1 quirk: the 2nd positional argument is trainable
    assert tf.global_variables() == [a, b, d]
    assert tf.trainable_variables() == [a, c, d]   # trainable adds its collection
    assert tf.get_collection("mine") == [c]
    assert d.trainable == "S"
    assert tf.all_variables() == tf.global_variables()
    assert tf.local_variables() == [] and tf.model_variables() == []
    assert tf.global_variables(scope="Variable_") == [b, d]


def test_constructor_errors():
    with pytest.raises(ValueError, match="^initial_value must be specified.$"):
        tf.Variable()
    with pytest.raises(ValueError, match="collections argument to Variable constructor must "
                                         "be a list, tuple, or set. Got abc of type"):
        tf.Variable(1.0, collections="abc")
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        tf.Variable(tf.placeholder(tf.float32))


def test_variable_made_under_control_dependencies_has_no_control_inputs():
    c = tf.constant(1.0)
    with tf.control_dependencies([c]):
        v = tf.Variable(2.0)
    assert all(op.control_inputs == [] for op in tf.get_default_graph().get_operations()
               if op.name.startswith("Variable"))
    assert v.initializer.control_inputs == []


# -- initialisation and errors -------------------------------------------------------------
def test_uninitialized_fetch_names_variable_and_student_line():
    v = tf.Variable([1.0, 2.0], name="W")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(v)
    message = str(info.value)
    assert message.startswith("Attempting to use uninitialized value W\n")
    assert "test_variables.py:" in message and 'name="W"' in message
    assert "global_variables_initializer" in message          # the hint


def test_uninitialized_read_fails_at_the_read_op():
    v = tf.Variable([1.0, 2.0], name="W")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(v.value())
    assert info.value.op.name == "W/read"
    assert str(info.value).splitlines()[1].startswith("\t [[node W/read (defined at ")


def test_global_variables_initializer_groups_every_initializer():
    a = tf.Variable(1.0)
    b = tf.Variable([2, 3])
    init = tf.global_variables_initializer()
    assert (init.name, init.type) == ("init", "NoOp")
    assert init.control_inputs == [a.initializer, b.initializer]
    with tf.Session() as sess:
        assert sess.run(init) is None
        assert sess.run(a) == 1.0
        np.testing.assert_array_equal(sess.run(b), [2, 3])
    assert tf.initialize_all_variables().name == "init_1"


def test_empty_initializers_are_noops():
    assert tf.global_variables_initializer().type == "NoOp"
    assert tf.local_variables_initializer().name == "init_1"
    v = tf.Variable(1.0)
    only = tf.variables_initializer([v], name="only_v")
    assert only.name == "only_v" and only.control_inputs == [v.initializer]


def test_is_variable_initialized_per_session():
    v = tf.Variable(1.0)
    check = tf.is_variable_initialized(v)
    assert check.dtype == tf.bool and check.op.type == "IsVariableInitialized"
    with tf.Session() as s1, tf.Session() as s2:
        s1.run(v.initializer)
        assert s1.run(check) and not s2.run(check)


def test_two_sessions_are_independent():
    v = tf.Variable(10)
    add = tf.assign_add(v, 5)
    s1, s2 = tf.Session(), tf.Session()
    s1.run(v.initializer)
    s2.run(v.initializer)
    s1.run(add)
    s1.run(add)
    assert (s1.run(v), s2.run(v)) == (20, 10)
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.Session().run(v)
    s1.close()
    s2.close()


def test_initializer_can_read_another_variable_in_the_same_run():
    w1 = tf.Variable([1.0, 2.0])
    w2 = tf.Variable(w1.initialized_value())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w2), [1.0, 2.0])


# -- assign ------------------------------------------------------------------------------------
def test_counter_with_assign_add_counts_across_runs():
    state = tf.Variable(0, name="counter")
    update = tf.assign_add(state, 1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        seen = [int(sess.run(update)) for _ in range(10)]
    assert seen == list(range(1, 11))


@pytest.mark.skipif(not has_tensor_operator("__add__"), reason="math ops not available")
def test_notes_counter_example_prints_1_to_10():
    state = tf.Variable(0, name="counter")
    one = tf.constant(1)
    new_value = state + one
    update = tf.assign(state, new_value)
    printed = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(update)
            printed.append(sess.run(state))
    assert printed == list(range(1, 11))


def test_assign_graph_names_and_return_values():
    v = tf.Variable([1.0, 2.0])
    a = tf.assign(v, [5.0, 6.0])
    assert a.op.type == "Assign" and a.name == "Assign:0" and a.dtype == tf.as_dtype("float32_ref")
    assert a.op.inputs[1].op.name == "Assign/value"
    assert a.op.get_attr("use_locking") is True
    b = v.assign([1.0, 1.0])
    assert b.op.get_attr("use_locking") is False
    c = v.assign_add([1.0, 1.0], read_value=False)
    assert isinstance(c, tf.Operation) and c.type == "AssignAdd"
    d = v.assign_sub([3.0, 3.0], name="minus")
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(a), [5.0, 6.0])
        sess.run(c)
        np.testing.assert_array_equal(sess.run(v), [6.0, 7.0])
        np.testing.assert_array_equal(sess.run(d), [3.0, 4.0])
        assert d.op.name == "minus"


def test_assign_validate_shape_static_and_runtime_errors():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                                         r"2 and 3. Shapes are \[2\] and \[3\]. for 'Assign' "
                                         r"\(op: 'Assign'\) with input shapes: \[2\], \[3\].$"):
        tf.assign(v, [1.0, 2.0, 3.0])
    p = tf.placeholder(tf.float32)
    a = tf.assign(v, p)
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Assign requires shapes of "
                           r"both tensors to match. lhs shape= \[2\] rhs shape= \[3\]"):
            sess.run(a, {p: [1.0, 2.0, 3.0]})


def test_assign_without_validate_shape_changes_the_shape():
    v = tf.Variable([1.0, 2.0])
    grow = tf.assign(v, [1.0, 2.0, 3.0], validate_shape=False)
    assert grow.shape.as_list() == [3]
    assert v.shape.as_list() == [2]                 # the variable's static shape stays
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(grow)
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 3.0])


def test_variable_created_with_validate_shape_false_has_unknown_shape():
    v = tf.Variable(tf.placeholder(tf.float32), validate_shape=False)
    assert v.shape.ndims is None
    with tf.Session() as sess:
        sess.run(v.initializer, {v.initial_value: [[1.0], [2.0]]})
        np.testing.assert_array_equal(sess.run(v), [[1.0], [2.0]])


def test_assign_type_errors():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="^Input 'value' of 'Assign' Op has type int32 that "
                                        "does not match type float32 of argument 'ref'.$"):
        tf.assign(v, tf.constant([1, 2]))
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'assign'"):
        tf.assign(tf.constant(1.0), 2.0)


def test_assign_add_on_uninitialized_and_wrong_size():
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.float32)
    add = tf.assign_add(v, p)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="^Attempting to use uninitialized value Variable"):
            sess.run(add, {p: [1.0, 1.0]})
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Parameters and update must be the same size"):
            sess.run(add, {p: [1.0, 1.0, 1.0]})


# -- values are the Session's, students get copies -------------------------------------------
def test_fetched_value_is_a_copy_the_student_may_change():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(v)
        got[0] = 99.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        read = sess.run(v.value())
        read[1] = 99.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


def test_assigned_value_is_independent_of_the_fed_array():
    v = tf.Variable([0.0, 0.0])
    p = tf.placeholder(tf.float32, [2])
    a = tf.assign(v, p)
    fed = np.array([1.0, 2.0], dtype=np.float32)
    with tf.Session() as sess:
        sess.run(a, {p: fed})
        fed[0] = 50.0
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        assert fed.flags.writeable                 # the student's array is left alone


def test_feeding_a_variable_replaces_its_value_for_one_run():
    v = tf.Variable([1.0, 2.0])
    doubled = tf.identity(v)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(v, {v: [7.0, 8.0]}), [7.0, 8.0])
        np.testing.assert_array_equal(sess.run(doubled, {v: [3.0, 4.0]}), [3.0, 4.0])
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(doubled)                       # the feed did not initialize it


def test_eval_load_and_read_value():
    v = tf.Variable([1.0, 2.0])
    with tf.Session() as sess:
        v.load([3.0, 4.0], sess)
        np.testing.assert_array_equal(v.eval(sess), [3.0, 4.0])
        np.testing.assert_array_equal(v.eval(), [3.0, 4.0])       # default session
        read = v.read_value()
        assert read.op.type == "Identity" and read.name == "read:0"
        np.testing.assert_array_equal(sess.run(read), [3.0, 4.0])
    with pytest.raises(ValueError, match="Either session argument should be provided"):
        v.load([1.0, 2.0])


def test_convert_to_tensor_gives_the_snapshot():
    v = tf.Variable(1.0)
    assert tf.convert_to_tensor(v) is v.value()
    assert tf.identity(v).op.inputs[0] is v.value()
    assert tf.is_tensor(v)


_OPERATOR_CASES = [            # (Tensor operator needed, expression, expected value)
    ("__add__", lambda v: v + 1.0, [2, 3]),
    ("__radd__", lambda v: 1.0 + v, [2, 3]),
    ("__mul__", lambda v: v * 2.0, [2, 4]),
    ("__sub__", lambda v: v - 1.0, [0, 1]),
    ("__neg__", lambda v: -v, [-1, -2]),
    ("__truediv__", lambda v: v / 2.0, [.5, 1]),
    ("__getitem__", lambda v: v[0], 1),
    ("__lt__", lambda v: v < 2.0, [True, False]),
]


@pytest.mark.parametrize("operator, expression, expected", _OPERATOR_CASES,
                         ids=[c[0] for c in _OPERATOR_CASES])
def test_python_operators_use_the_snapshot(operator, expression, expected):
    if not has_tensor_operator(operator):
        pytest.skip("Tensor.%s is not installed (math/array ops missing)" % operator)
    v = tf.Variable([1.0, 2.0])
    e = expression(v)
    assert isinstance(e, tf.Tensor)
    assert v.value() in e.op.inputs or e.op.inputs[0].op.inputs[0] is v.value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(e), expected)


def test_variable_is_not_iterable_or_an_array():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="'Variable' object is not iterable."):
        iter(v)
    assert v == v and v != tf.Variable([1.0, 2.0])      # identity, as TF1 graph mode


@pytest.mark.skipif(not hasattr(tf, "boolean_mask"), reason="array ops not available")
def test_report_uninitialized_variables():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    report = tf.report_uninitialized_variables()
    assert report.dtype == tf.string
    with tf.Session() as sess:
        assert list(sess.run(report)) == [b"a", b"b"]
        sess.run(a.initializer)
        assert list(sess.run(report)) == [b"b"]
        sess.run(b.initializer)
        assert list(sess.run(report)) == []


def _variable_v1_call(initial_value=None, trainable=None, collections=None,
                      validate_shape=True, caching_device=None, name=None, variable_def=None,
                      dtype=None, expected_shape=None, import_scope=None, constraint=None,
                      use_resource=None, synchronization=None, aggregation=None, shape=None):
    """TF 1.15's VariableMetaclass._variable_v1_call signature (less `cls`)."""


def test_a_keyword_tf_variable_does_not_take_is_tf_1_15s_type_error():
    # TF 1.15: tf.Variable(...) is VariableMetaclass calling _variable_v1_call(cls,
    # initial_value=None, ..., shape=None); the notes' tf.Variable('a', ...,
    # initializer=...) is Python's TypeError for that function (TF 2.21's compat.v1
    # accepts the keyword, so the reference is Python's own message for the signature).
    with pytest.raises(TypeError) as expected:
        _variable_v1_call('a', dtype=tf.float32, shape=[], initializer=None)
    with tf.Graph().as_default():
        with pytest.raises(TypeError) as got:
            tf.Variable('a', dtype=tf.float32, shape=[], initializer=tf.zeros_initializer)
        assert str(got.value) == str(expected.value)
        assert tf.Variable(0.0, name='a', shape=[]).name == "a:0"   # its own keywords pass


def _variable_classes(tf):
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        w = tf.get_variable("w", [2])
        return [type(v).__name__, type(w).__name__, isinstance(v, tf.Variable),
                str(v.eval).split(" of ")[0], str(w.assign).split(" of ")[0]]


def test_graph_variables_are_ref_variables_as_in_tf_1_15():
    # TF 1.15: tf.Variable (VariableV1) makes a RefVariable, whose methods are its own:
    # lesson 21's print(v.eval) shows '<bound method RefVariable.eval of ...>' (tfteach:
    # 'Variable.eval', type Variable)
    from tf_reference import tf1_behaviour
    with tf1_behaviour() as tf1:
        expected = _variable_classes(tf1)
    assert _variable_classes(tf) == expected
    assert expected[0] == "RefVariable"
