"""Control flow: no_op / group / tuple / Print, tf.cond, tf.case and tf.while_loop.

Expected values are computed by hand or with plain Python; graph structure follows what
TensorFlow 1.x builds (checked against tf.compat.v1 with control flow v1, see
test_control_flow_reference.py for the differential tests).
"""
import numpy as np
import pytest

import tfteach as tf
from tfteach import errors

FULL_TRACE = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def traced_node_names(sess, fetches, feed_dict=None):
    """The names of the ops that ran, from the step stats of one traced run."""
    meta = tf.RunMetadata()
    sess.run(fetches, feed_dict, options=FULL_TRACE, run_metadata=meta)
    return [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]


def graph_summary(prefix):
    return [(op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs])
            for op in tf.get_default_graph().get_operations() if op.name.startswith(prefix)]


# -- no_op, group, tuple, Print -----------------------------------------------------------
def test_no_op_has_no_outputs_and_runs_to_none():
    op = tf.no_op()
    named = tf.no_op(name="nothing")
    assert (op.name, op.type, op.outputs) == ("NoOp", "NoOp", [])
    assert named.name == "nothing"
    with tf.Session() as sess:
        assert sess.run(op) is None


def test_group_is_a_noop_waiting_for_all_inputs(capsys):
    a = tf.Print(tf.constant(1), [tf.constant(1)], "a")
    b = tf.Print(tf.constant(2), [tf.constant(2)], "b")
    c = tf.Print(tf.constant(3), [tf.constant(3)], "c")
    g = tf.group(a, [b, [c.op]])
    named = tf.group(a, name="only_a")
    assert (g.name, g.type) == ("group_deps", "NoOp")
    assert set(g.control_inputs) == {a.op, b.op, c.op}
    assert named.name == "only_a"
    with tf.Session() as sess:
        assert sess.run(g) is None
    assert sorted(capsys.readouterr().out.split()) == ["a[1]", "b[2]", "c[3]"]


def test_group_of_nothing_and_bad_inputs():
    assert tf.group().control_inputs == []
    with pytest.raises(TypeError):
        tf.group(1.0)
    with pytest.raises(TypeError):
        tf.group(a=1)


def test_tuple_outputs_wait_for_every_input(capsys):
    a = tf.Print(tf.constant(1), [tf.constant(1)], "a")
    b = tf.Print(tf.constant(2), [tf.constant(2)], "b")
    ta, tb = tf.tuple([a, b])
    assert (ta.name, tb.name) == ("tuple/control_dependency:0", "tuple/control_dependency_1:0")
    with tf.Session() as sess:
        assert sess.run(ta) == 1                  # ... and b ran as well
    assert sorted(capsys.readouterr().out.split()) == ["a[1]", "b[2]"]


def test_print_returns_input_and_formats_like_tensorflow(capsys):
    x = tf.constant([[1.5, 2.0], [3.0, 4.25]])
    out = tf.Print(x, [x, tf.constant(7), tf.constant([True, False]),
                       tf.constant([1, 2, 3, 4, 5]), tf.constant(1 / 3),
                       tf.constant(1 / 3, tf.float64), tf.constant(1e10)], "values: ")
    assert (out.op.type, out.op.name, out.shape) == ("Print", "Print", x.shape)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [[1.5, 2.0], [3.0, 4.25]])
    # TF's summarize=3: at most 3 elements of each tensor, then "..." (output of
    # TensorFlow's own Print kernel for the same program).
    assert capsys.readouterr().out == ("values: [[1.5 2][3...]...][7][1 0][1 2 3...]"
                                       "[0.333333343][0.33333333333333331][1e+10]\n")


def test_print_first_n_and_summarize(capsys):
    x = tf.constant([0.1, 0.2, 0.3, 0.4])
    out = tf.Print(x, [x], "x=", first_n=2, summarize=10)
    with tf.Session() as sess:
        for _ in range(3):
            sess.run(out)
    assert capsys.readouterr().out == "x=[0.1 0.2 0.3 0.4]\n" * 2


def test_assert_fails_the_run_with_tensorflow_text():
    x = tf.placeholder(tf.int32)
    check = tf.Assert(x > 0, ["x must be positive", x])
    with tf.control_dependencies([check]):
        y = tf.identity(x)
    with tf.Session() as sess:
        assert sess.run(y, {x: 3}) == 3
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"assertion failed: \[x must be positive\] \[-1\]"):
            sess.run(y, {x: -1})


# -- tf.cond ---------------------------------------------------------------------------------
def test_cond_value_follows_the_fed_predicate():
    p = tf.placeholder(tf.bool, name="p")
    x = tf.constant(2.0, name="x")
    r = tf.cond(p, lambda: x + 1.0, lambda: x - 1.0)
    assert (r.name, r.dtype, r.shape) == ("cond/Merge:0", tf.float32, tf.TensorShape([]))
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 3.0
        assert sess.run(r, {p: False}) == 1.0


def test_cond_graph_structure_is_tensorflows():
    p = tf.placeholder(tf.bool, name="p")
    x = tf.constant(2.0, name="x")
    tf.cond(p, lambda: x + 1.0, lambda: x - 1.0)
    assert graph_summary("cond/") == [
        ("cond/Switch", "Switch", ["p:0", "p:0"], []),
        ("cond/switch_t", "Identity", ["cond/Switch:1"], []),
        ("cond/switch_f", "Identity", ["cond/Switch:0"], []),
        ("cond/pred_id", "Identity", ["p:0"], []),
        ("cond/add/y", "Const", [], ["cond/switch_t"]),
        ("cond/add/Switch", "Switch", ["x:0", "cond/pred_id:0"], []),
        ("cond/add", "AddV2", ["cond/add/Switch:1", "cond/add/y:0"], []),
        ("cond/sub/y", "Const", [], ["cond/switch_f"]),
        ("cond/sub/Switch", "Switch", ["x:0", "cond/pred_id:0"], []),
        ("cond/sub", "Sub", ["cond/sub/Switch:0", "cond/sub/y:0"], []),
        ("cond/Merge", "Merge", ["cond/sub:0", "cond/add:0"], []),
    ]
    merge = tf.get_default_graph().get_operation_by_name("cond/Merge")
    assert [t.dtype for t in merge.outputs] == [tf.float32, tf.int32]


def test_only_the_taken_branch_runs_in_step_stats():
    p = tf.placeholder(tf.bool, name="p")
    x = tf.constant(2.0, name="x")
    r = tf.cond(p, lambda: x * 3.0, lambda: x - 1.0)
    with tf.Session() as sess:
        ran_true = traced_node_names(sess, r, {p: True})
        ran_false = traced_node_names(sess, r, {p: False})
    assert "cond/mul" in ran_true and "cond/mul/y" in ran_true
    assert not {"cond/sub", "cond/sub/y", "cond/switch_f"} & set(ran_true)
    assert "cond/sub" in ran_false and "cond/sub/y" in ran_false
    assert not {"cond/mul", "cond/mul/y", "cond/switch_t"} & set(ran_false)
    assert ran_true[-1] == ran_false[-1] == "cond/Merge"


def test_only_the_taken_branch_prints(capsys):
    p = tf.placeholder(tf.bool)
    x = tf.constant(5)
    r = tf.cond(p, lambda: tf.Print(x, [x], "true branch "),
                lambda: tf.Print(-x, [x], "false branch "))
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 5
        assert capsys.readouterr().out == "true branch [5]\n"
        assert sess.run(r, {p: False}) == -5
        assert capsys.readouterr().out == "false branch [5]\n"


def test_outer_tensor_gets_one_switch_per_branch_reused():
    p = tf.placeholder(tf.bool)
    x = tf.placeholder(tf.float32, name="x")
    r = tf.cond(p, lambda: x * x + x, lambda: x)
    switches = [op for op in tf.get_default_graph().get_operations()
                if op.type == "Switch" and op.inputs[0] is x]
    assert [op.name for op in switches] == ["cond/mul/Switch", "cond/Switch_1"]
    with tf.Session() as sess:
        assert sess.run(r, {p: True, x: 3.0}) == 12.0
        assert sess.run(r, {p: False, x: 3.0}) == 3.0


def test_constants_in_a_branch_wait_for_the_pivot():
    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    g = tf.get_default_graph()
    assert g.get_operation_by_name("cond/Const").control_inputs == [
        g.get_operation_by_name("cond/switch_t")]
    assert g.get_operation_by_name("cond/Const_1").control_inputs == [
        g.get_operation_by_name("cond/switch_f")]
    with tf.Session() as sess:
        assert (sess.run(r, {p: True}), sess.run(r, {p: False})) == (1, 2)


def test_nested_cond_all_four_paths():
    p = tf.placeholder(tf.bool)
    q = tf.placeholder(tf.bool)
    x = tf.constant(10)
    r = tf.cond(p,
                lambda: tf.cond(q, lambda: x + 1, lambda: x + 2),
                lambda: tf.cond(q, lambda: x + 3, lambda: x * 4))
    expected = {(True, True): 11, (True, False): 12, (False, True): 13, (False, False): 40}
    with tf.Session() as sess:
        for (pv, qv), want in expected.items():
            assert sess.run(r, {p: pv, q: qv}) == want
        ran = traced_node_names(sess, r, {p: True, q: False})
    assert "cond/cond/add_1" in ran         # x + 2 in the taken inner branch
    assert not [name for name in ran if name.startswith("cond/cond_1/") and
                name.split("/")[-1] in ("add", "mul")]


def test_cond_returns_structures_and_unpacks_singletons():
    p = tf.placeholder(tf.bool)
    a, b = tf.constant(1), tf.constant(2.0)
    pair = tf.cond(p, lambda: (a, {"k": b}), lambda: (a + 1, {"k": b * 2}))
    single = tf.cond(p, lambda: [a], lambda: [a + 5])
    strict = tf.cond(p, lambda: [a], lambda: [a + 5], strict=True)
    assert isinstance(pair, tuple) and set(pair[1]) == {"k"}
    assert isinstance(single, tf.Tensor)
    assert isinstance(strict, list) and len(strict) == 1
    with tf.Session() as sess:
        assert sess.run(pair, {p: True}) == (1, {"k": 2.0})
        assert sess.run(pair, {p: False}) == (2, {"k": 4.0})
        assert sess.run(single, {p: False}) == 6
        assert sess.run(strict, {p: True}) == [1]


def test_cond_branch_returning_an_op_gives_a_bool_that_waits_for_it(capsys):
    p = tf.placeholder(tf.bool)
    x = tf.constant(1)
    r = tf.cond(p, lambda: tf.Print(x, [x], "yes").op, lambda: tf.no_op())
    assert r.dtype == tf.bool and r.op.type == "Merge"
    assert tf.get_default_graph().get_operation_by_name("cond/control_dependency").type == \
        "Identity"
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == True  # noqa: E712 - a NumPy bool
        assert capsys.readouterr().out == "yes[1]\n"
        # The value is the pivot's, i.e. the predicate's: False on the false side.
        assert sess.run(r, {p: False}) == False  # noqa: E712
        assert capsys.readouterr().out == ""


def test_cond_merge_shape_is_what_both_branches_allow():
    p = tf.placeholder(tf.bool)
    same = tf.cond(p, lambda: tf.constant([1, 2]), lambda: tf.constant([3, 4]))
    vary = tf.cond(p, lambda: tf.constant([1, 2]), lambda: tf.constant([1, 2, 3]))
    ranks = tf.cond(p, lambda: tf.constant([[1, 2]]), lambda: tf.constant([1, 2, 3]))
    assert same.shape.as_list() == [2]
    assert vary.shape.as_list() == [None]
    assert ranks.shape.ndims is None


def test_cond_predicate_from_a_comparison_and_python_values():
    x = tf.placeholder(tf.float32)
    r = tf.cond(x > 0, lambda: 1, lambda: -1)
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (2.0, -3.0)] == [1, -1]


def test_branch_tensors_are_not_fetchable():
    p = tf.placeholder(tf.bool)
    tf.cond(p, lambda: tf.constant(1) + 1, lambda: tf.constant(0))
    inner = tf.get_default_graph().get_tensor_by_name("cond/add:0")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="'cond/add' has been marked as not fetchable"):
            sess.run([inner], {p: True})


def test_fn1_fn2_old_names_and_argument_errors():
    p = tf.placeholder(tf.bool)
    with tf.Session() as sess:
        assert sess.run(tf.cond(p, fn1=lambda: 1, fn2=lambda: 2), {p: False}) == 2
    with pytest.raises(TypeError, match="pred must not be a Python bool"):
        tf.cond(True, lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="^true_fn must be callable.$"):
        tf.cond(p, 1, lambda: 2)
    with pytest.raises(TypeError, match="^false_fn must be callable.$"):
        tf.cond(p, lambda: 1, 2)
    with pytest.raises(TypeError, match=r"cond\(\): false_fn argument required"):
        tf.cond(p, lambda: 1)
    with pytest.raises(TypeError, match="true_fn and fn1 may not be set simultaneously"):
        tf.cond(p, lambda: 1, lambda: 2, fn1=lambda: 3)
    with pytest.raises(ValueError, match="^true_fn must have a return value.$"):
        tf.cond(p, lambda: None, lambda: 2)


def test_cond_mismatched_branches_and_predicates():
    p = tf.placeholder(tf.bool)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.cond(p, lambda: 1, lambda: [1, 2])
    with pytest.raises(TypeError, match="don't have the same nested structure"):
        tf.cond(p, lambda: (1, 2), lambda: [1, 2])
    with pytest.raises(ValueError, match="^Outputs of true_fn and false_fn must have the same "
                                         "type: int32, float32$"):
        tf.cond(p, lambda: 1, lambda: 2.0)
    with pytest.raises(TypeError, match="Input 'pred' of 'Switch' Op has type int32 that "
                                        "does not match expected type of bool."):
        tf.cond(tf.constant(1), lambda: 1, lambda: 2)
    with pytest.raises(ValueError, match=r"Shape must be rank 0 but is rank 1 for "
                                         r"'cond_\d+/Switch' \(op: 'Switch'\)"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)


def test_cond_runs_a_variable_update_only_in_the_taken_branch():
    v = tf.Variable(0, name="v")
    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: tf.assign_add(v, 10), lambda: tf.assign_add(v, 1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        results = [sess.run(r, {p: pv}) for pv in (True, True, False)]
        assert results == [10, 20, 21]
        assert sess.run(v) == 21


def test_case_picks_the_first_true_predicate_and_default():
    x = tf.placeholder(tf.int32)
    r = tf.case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                default=lambda: tf.constant(100))
    last_is_default = tf.case([(x < 0, lambda: tf.constant(-1)),
                               (x >= 0, lambda: tf.constant(1))])
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-5, 3, 50)] == [-1, 1, 100]
        assert [sess.run(last_is_default, {x: v}) for v in (-5, 3)] == [-1, 1]


def test_case_exclusive_checks_at_most_one_true():
    x = tf.placeholder(tf.int32)
    r = tf.case([(x < 5, lambda: tf.constant(1)), (x < 10, lambda: tf.constant(2))],
                default=lambda: tf.constant(3), exclusive=True)
    with tf.Session() as sess:
        assert sess.run(r, {x: 7}) == 2
        with pytest.raises(errors.InvalidArgumentError, match="Input error: exclusive=True"):
            sess.run(r, {x: 1})
    with pytest.raises(TypeError, match="pred must be Tensor of type bool"):
        tf.case([(tf.constant(1), lambda: 1)])


# -- tf.while_loop -----------------------------------------------------------------------------
def test_counter_loop_and_names():
    i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    assert (i.name, i.dtype, i.shape) == ("while/Exit:0", tf.int32, tf.TensorShape([]))
    with tf.Session() as sess:
        assert sess.run(i) == 10


def test_while_graph_ops_live_under_the_while_scope():
    n = tf.placeholder(tf.int32, name="n")
    k = tf.constant(5, name="k")
    tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i * k), [0, 0])
    ops = {op.name: op for op in tf.get_default_graph().get_operations()}
    expected_types = {
        "while/Identity": "LoopVar", "while/Identity_1": "LoopVar", "while/Less": "Less",
        "while/LoopCond": "LoopCond", "while/add": "AddV2", "while/mul": "Mul",
        "while/add_1": "AddV2", "while/NextIteration": "NextIteration",
        "while/NextIteration_1": "NextIteration", "while": "While",
        "while/Exit": "Exit", "while/Exit_1": "Exit"}
    assert {name: ops[name].type for name in expected_types} == expected_types
    loop = ops["while"]
    assert [t.name for t in loop.inputs] == ["while/Const:0", "while/Const_1:0", "n:0", "k:0"]
    assert ops["while/Less"].inputs[1].name == "n:0"        # outside tensors used directly


def test_sum_one_to_n_with_a_placeholder():
    n = tf.placeholder(tf.int32)
    _, total = tf.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + i), [1, 0])
    with tf.Session() as sess:
        for value in (0, 1, 10, 100):
            assert sess.run(total, {n: value}) == sum(range(1, value + 1))


def test_fibonacci():
    n = tf.placeholder(tf.int32)
    _, a, _ = tf.while_loop(lambda i, a, b: i < n, lambda i, a, b: (i + 1, b, a + b),
                            (0, tf.constant(0, tf.int64), tf.constant(1, tf.int64)))
    fib = [0, 1]
    while len(fib) < 60:
        fib.append(fib[-1] + fib[-2])
    with tf.Session() as sess:
        assert [sess.run(a, {n: k}) for k in (0, 1, 2, 10, 59)] == [fib[k] for k in
                                                                     (0, 1, 2, 10, 59)]


def test_matrix_power():
    m = np.array([[1.0, 1.0], [0.0, 2.0]], dtype=np.float32)
    matrix = tf.constant(m)
    _, power = tf.while_loop(lambda i, p: i < 5, lambda i, p: (i + 1, tf.matmul(p, matrix)),
                             [0, tf.eye(2)])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(power), np.linalg.matrix_power(m, 5))


def test_nested_loops():
    n = tf.placeholder(tf.int32)

    def outer_body(i, total):
        _, row = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + i * j), [0, 0])
        return i + 1, total + row

    _, total = tf.while_loop(lambda i, t: i < n, outer_body, [0, 0])
    with tf.Session() as sess:
        assert sess.run(total, {n: 6}) == sum(i * j for i in range(6) for j in range(i))
    assert tf.get_default_graph().get_operation_by_name("while/while").type == "While"


def test_loop_inside_cond_and_cond_inside_loop():
    p = tf.placeholder(tf.bool)
    n = tf.placeholder(tf.int32)
    in_cond = tf.cond(p, lambda: tf.while_loop(lambda j: j < n, lambda j: j + 3, [0]),
                      lambda: tf.constant(-1))
    collatz_steps = tf.while_loop(
        lambda x, steps: x > 1,
        lambda x, steps: (tf.cond(tf.equal(x % 2, 0), lambda: x // 2, lambda: 3 * x + 1),
                          steps + 1),
        [n, 0])[1]
    with tf.Session() as sess:
        assert sess.run(in_cond, {p: True, n: 10}) == 12
        assert sess.run(in_cond, {p: False, n: 10}) == -1
        assert "while" not in traced_node_names(sess, in_cond, {p: False, n: 10})
        assert sess.run(collatz_steps, {n: 27}) == 111


def test_captured_tensors_and_loop_structures():
    x = tf.placeholder(tf.float32, shape=[3])
    scale = tf.constant(2.0)
    # TF compares the body's result with the loop variables as lists: a single dict
    # loop variable comes back from the body as a one-element list, and out as one.
    out = tf.while_loop(lambda s: s["n"] < 3,
                        lambda s: [{"n": s["n"] + 1, "v": s["v"] * scale + x}],
                        [{"n": 0, "v": tf.zeros([3])}])
    assert isinstance(out, list) and set(out[0]) == {"n", "v"}
    pair = tf.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1, b), [0, 1])
    assert isinstance(pair, tuple)          # the body's structure, as in TF
    same = tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0], return_same_structure=True)
    assert isinstance(same, list) and len(same) == 1
    with tf.Session() as sess:
        result = sess.run(out, {x: [1.0, 2.0, 3.0]})[0]
        assert sess.run(pair) == (3, 1)
    # v: 0 -> x -> 3x -> 7x
    np.testing.assert_allclose(result["v"], np.array([1.0, 2.0, 3.0]) * 7)
    assert result["n"] == 3


def test_single_tensor_loop_var():
    with tf.Session() as sess:
        assert sess.run(tf.while_loop(lambda i: i < 4, lambda i: i * 2, tf.constant(1))) == 4


def test_maximum_iterations_stops_the_loop():
    forever = tf.while_loop(lambda i: True, lambda i: i + 2, [0], maximum_iterations=5)
    limit = tf.placeholder(tf.int32, shape=[])     # TF requires a known scalar shape
    pair = tf.while_loop(lambda a, b: a < 100, lambda a, b: (a + 1, b * 2), (0, 1),
                         maximum_iterations=limit)
    assert forever.name == "while/Exit_1:0"
    with tf.Session() as sess:
        assert sess.run(forever) == 10
        assert sess.run(pair, {limit: 4}) == (4, 16)
        assert sess.run(pair, {limit: 0}) == (0, 1)
    with pytest.raises(ValueError, match="maximum_iterations must be a scalar"):
        tf.while_loop(lambda i: i < 1, lambda i: i + 1, [0], maximum_iterations=[1, 2])


def test_shape_invariants_allow_growth_and_report_tensorflows_error():
    x = tf.constant([1])
    grown = tf.while_loop(lambda v: tf.size(v) < 8, lambda v: tf.concat([v, v + 1], 0), [x],
                          shape_invariants=[tf.TensorShape([None])])
    assert grown.shape.as_list() == [None]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(grown), [1, 2, 2, 3, 2, 3, 3, 4])
    with pytest.raises(ValueError) as info:
        tf.while_loop(lambda i: i < 10, lambda i: tf.constant([1, 2]),
                      [tf.constant(0, name="start")])
    assert str(info.value) == (
        "Input tensor 'start:0' enters the loop with shape (), but has shape (2,) after "
        "one iteration. To allow the shape to vary across iterations, use the "
        "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
    with pytest.raises(ValueError, match="The shape invariant specified for Const:0 is not "
                                         "compatible with the initial shape"):
        tf.while_loop(lambda v: True, lambda v: v, [x], shape_invariants=[tf.TensorShape([2])])


def test_while_loop_argument_errors():
    with pytest.raises(TypeError, match="^cond must be callable.$"):
        tf.while_loop(1, lambda i: i, [0])
    with pytest.raises(TypeError, match="^body must be callable.$"):
        tf.while_loop(lambda i: i < 1, 1, [0])
    with pytest.raises(ValueError, match="No loop variables provided"):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(TypeError, match="Input 'input' of 'LoopCond' Op has type int32"):
        tf.while_loop(lambda i: i, lambda i: i + 1, [0])
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant([1, 2])])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.while_loop(lambda i, j: i < 10, lambda i, j: i + 1, [0, 1])
    with pytest.raises(TypeError, match="enters the loop with dtype int32, but has dtype "
                                        "float32"):
        tf.while_loop(lambda i: i < 10, lambda i: tf.cast(i, tf.float32), [0])


def test_body_ops_run_once_per_iteration(capsys):
    counter = tf.Variable(0, name="counter")
    n = tf.placeholder(tf.int32)

    def body(i):
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return tf.Print(i + 1, [i], "step ")

    loop = tf.while_loop(lambda i: i < n, body, [0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(loop, {n: 3}) == 3
        assert sess.run(counter) == 3
        assert sess.run(loop, {n: 4}) == 4
        assert sess.run(counter) == 7
    assert capsys.readouterr().out == "".join("step [%d]\n" % i for i in [0, 1, 2, 0, 1, 2, 3])


def test_variable_read_inside_the_body_sees_each_update():
    v = tf.Variable(1, name="v")
    _, seen = tf.while_loop(
        lambda i, s: i < 3,
        lambda i, s: (i + 1, s + tf.assign_add(v, 1)),   # the new value: 2, 3, 4
        [0, 0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(seen) == 2 + 3 + 4


def test_outer_control_dependency_runs_once_before_the_loop(capsys):
    note = tf.Print(tf.constant(0), [tf.constant(0)], "before")
    with tf.control_dependencies([note]):
        loop = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    assert note.op in tf.get_default_graph().get_operation_by_name("while").control_inputs
    with tf.Session() as sess:
        assert sess.run(loop) == 3
    assert capsys.readouterr().out == "before[0]\n"


def test_loop_tensors_cannot_be_fetched_or_used_outside():
    inside = []

    def body(i):
        inside.append(i * 2)
        return i + 1

    loop = tf.while_loop(lambda i: i < 3, body, [0])
    escaped = inside[0] + 1
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="'while/mul' has been marked as not fetchable"):
            sess.run([inside[0]])
        with pytest.raises(errors.InvalidArgumentError, match="while/Identity is a loop "
                                                              "variable of a tf.while_loop"):
            sess.run(escaped)
        assert sess.run(loop) == 3


def test_runtime_errors_in_the_body_name_the_body_op():
    x = tf.placeholder(tf.int32, shape=[])
    loop = tf.while_loop(lambda i: i < 3, lambda i: i + 10 // x, [0])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError) as info:
            sess.run(loop, {x: 0})
    assert "while/floordiv" in str(info.value)


def test_two_sessions_run_the_same_loop_independently():
    n = tf.placeholder(tf.int32)
    loop = tf.while_loop(lambda i: i < n, lambda i: i + 1, [0])
    with tf.Session() as first, tf.Session() as second:
        assert first.run(loop, {n: 3}) == 3
        assert second.run(loop, {n: 7}) == 7
        assert first.run(loop, {n: 5}) == 5


def test_outer_control_dependency_reaches_a_cond_inside_the_loop_once(capsys):
    x = tf.placeholder(tf.int32)
    note = tf.Print(x, [x], "before")
    with tf.control_dependencies([note]):
        loop = tf.while_loop(lambda i: i < 3,
                             lambda i: tf.cond(i < 1, lambda: i + 1, lambda: i + 2), [0])
    with tf.Session() as sess:
        assert sess.run(loop, {x: 7}) == 3          # 0 -> 1 -> 3
    assert capsys.readouterr().out == "before[7]\n"
