"""tf.function: one trace per input signature (tensor dtypes/shapes, Python values),
input_signature, side effects at trace time only, the traced graph, variables read and
updated in program order, variable creation on the first trace only, a training step
with a tape inside, results equal to the eager run of the same Python function."""
import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture


def test_traces_once_per_signature(eager):
    tf = eager
    traced = []

    @tf.function
    def f(a, b):
        traced.append((a.shape.as_list(), a.dtype.name))     # a Python side effect
        return tf.matmul(a, b)

    a, b = tf.constant([[0.5, 0.5]]), tf.constant([[10.0], [1.0]])
    np.testing.assert_array_equal(f(a, b).numpy(), [[5.5]])
    np.testing.assert_array_equal(f(tf.constant([[1.0, 2.0]]), b).numpy(), [[12.0]])
    assert traced == [([1, 2], "float32")]                    # same signature: no retrace
    f(tf.constant([[1.0, 2.0], [3.0, 4.0]]), b)               # new shape: a new trace
    f(np.ones([1, 2], np.float32), b)                         # NumPy arrays are tensors too
    assert len(traced) == 2 and len(f.concrete_functions) == 2
    f(tf.constant([[1.0, 2.0]], tf.float64), tf.constant([[1.0], [1.0]], tf.float64))
    assert len(traced) == 3                                   # new dtype: a new trace


def test_python_values_are_part_of_the_signature(eager):
    tf = eager
    traced = []

    @tf.function
    def scale(x, factor, training=False):
        traced.append((factor, training))
        return x * factor if training else x

    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(scale(x, 2.0, training=True).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(scale(x, 3.0, training=True).numpy(), [3.0, 6.0])
    scale(x, 3.0, training=True)
    assert traced == [(2.0, True), (3.0, True)]


def test_python_results_become_tensors(eager):
    # TF's func_graph converts every leaf of the result: a call always returns tensors,
    # also when no argument is a tensor (a graph of constants only).
    tf = eager

    @tf.function
    def double(x):
        return x * 2

    for value, want in ((3, 6), (2.5, 5.0)):
        result = double(value)
        assert isinstance(result, type(tf.constant(0))) and result.numpy() == want
    assert double(3).dtype == tf.int32 and double(2.5).dtype == tf.float32

    @tf.function
    def mixed(x):
        return {"name": "abc", "pair": [1, 2.5], "same": x, "none": None}

    out = mixed(tf.constant([1.0]))
    assert repr(out["name"]) == "<tf.Tensor: shape=(), dtype=string, numpy=b'abc'>"
    assert [t.dtype for t in out["pair"]] == [tf.int32, tf.float32]
    assert out["none"] is None and out["same"].numpy().tolist() == [1.0]

    @tf.function
    def nothing():
        pass

    assert nothing() is None

    @tf.function
    def not_a_tensor(x):
        return object()

    with pytest.raises(TypeError, match="must return zero or more Tensors; in compilation of "
                                        ".*found return value of type <class 'object'>"):
        not_a_tensor(tf.constant(1))


def test_input_signature_and_relaxed_shapes(eager):
    tf = eager
    traced = []

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def square(x):
        traced.append(x.shape.as_list())
        return x * x

    np.testing.assert_array_equal(square(tf.constant([1.0, 2.0])).numpy(), [1.0, 4.0])
    np.testing.assert_array_equal(square(tf.constant([3.0])).numpy(), [9.0])
    assert traced == [[None]]
    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        square(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="input_signature must be a possibly nested sequence"):
        tf.function(lambda x: x, input_signature=[[1]])

    @tf.function(experimental_relax_shapes=True)
    def double(x):
        traced.append("relaxed")
        return x * 2.0
    double(tf.constant([1.0]))
    double(tf.constant([1.0, 2.0, 3.0]))
    assert traced.count("relaxed") == 1


def test_concrete_function_graph(eager):
    tf = eager

    @tf.function
    def add_fn(a, b):
        return tf.add(a, b)

    concrete = add_fn.get_concrete_function(tf.TensorSpec([2], tf.float32),
                                            tf.TensorSpec([2], tf.float32))
    ops = concrete.graph.get_operations()
    # the returned tensor is marked with an Identity, as TF's func_graph does
    assert [(op.name, op.type) for op in ops] == [("a", "Placeholder"), ("b", "Placeholder"),
                                                  ("Add", "Add"), ("Identity", "Identity")]
    assert [t.shape.as_list() for t in concrete.inputs] == [[2], [2]]
    assert add_fn.get_concrete_function(tf.TensorSpec([2], tf.float32),
                                        tf.TensorSpec([2], tf.float32)) is concrete
    np.testing.assert_array_equal(
        concrete(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])).numpy(), [4.0, 6.0])


def test_variables_in_program_order(eager):
    tf = eager
    v = tf.Variable(1.0)

    @tf.function
    def step(x):
        v.assign_add(x)
        first = v * 2.0          # after the update
        v.assign(first)
        return first, v.read_value()

    first, after = step(tf.constant(2.0))
    assert (float(first), float(after), float(v)) == (6.0, 6.0, 6.0)
    step(tf.constant(1.0))
    assert float(v) == 14.0


def test_variables_created_on_first_trace_only(eager):
    tf = eager

    class Lazy(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(tf.ones([x.shape[-1], 2]))
            return tf.matmul(x, self.w)

    m = Lazy()
    assert m(tf.ones([1, 3])).shape.as_list() == [1, 2]
    assert m(tf.ones([4, 3])).shape.as_list() == [4, 2]     # a retrace, no new variable
    assert len(m.variables) == 1

    @tf.function
    def bad(x):
        return x * tf.Variable(1.0)

    # TF traces a first call that created variables again with creation forbidden: a
    # function making a new variable each time fails on its first call.
    for _ in range(2):
        with pytest.raises(ValueError, match="^tf.function-decorated function tried to "
                                             "create variables on non-first call.$"):
            bad(tf.constant([1.0, 2.0]))

    traced = []

    @tf.function
    def once(x):
        traced.append("trace")
        if not hasattr(once, "v"):
            once.v = tf.Variable(2.0)
        return x * once.v

    assert once(tf.constant(3.0)).numpy() == 6.0 and traced == ["trace", "trace"]
    assert once(tf.constant(4.0)).numpy() == 8.0 and len(traced) == 2
    assert once(tf.constant([1.0])).numpy().tolist() == [2.0] and len(traced) == 3


def test_training_step_with_tape_inside(eager):
    tf = eager
    w = tf.Variable([[1.0], [2.0]])
    x, y = tf.constant([[1.0, 2.0]]), tf.constant([[1.0]])

    @tf.function
    def train(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        grad = tape.gradient(loss, w)
        w.assign_sub(0.1 * grad)
        return loss

    assert float(train(x, y)) == 16.0                # (1*1 + 2*2 - 1)^2
    np.testing.assert_allclose(w.numpy().ravel(), [1 - 0.8, 2 - 1.6], rtol=1e-6)
    assert abs(float(train(x, y))) < 1e-10           # x.w = 1 after one step


def test_function_equals_eager_run(eager):
    tf = eager
    rng = np.random.RandomState(0)
    w1 = tf.Variable(rng.randn(4, 8).astype(np.float32))
    w2 = tf.Variable(rng.randn(8, 3).astype(np.float32))

    def model(x):
        return tf.nn.softmax(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))

    x = tf.constant(rng.randn(5, 4).astype(np.float32))
    np.testing.assert_allclose(tf.function(model)(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_method_and_callable_object(eager):
    tf = eager

    class Model(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(float(k))

        def __call__(self, x):
            return x * self.k

    graphed = tf.function(Model(3))            # note 002: tf.function(ModelShallow())
    assert float(graphed(tf.constant(2.0))) == 6.0


def test_captured_eager_tensors_become_constants(eager):
    tf = eager
    w = tf.constant([[2.0], [3.0]])

    @tf.function
    def f(x):
        return tf.matmul(x, w) + w[0]

    np.testing.assert_array_equal(f(tf.constant([[1.0, 1.0]])).numpy(), [[7.0]])
    graph = f.get_concrete_function(tf.constant([[1.0, 1.0]])).graph
    consts = [op for op in graph.get_operations() if op.type == "Const"]
    assert any(np.array_equal(op.get_attr("value"), [[2.0], [3.0]]) for op in consts)


def test_tfgraph_line_magic_draws_each_concrete_function(eager):
    from IPython.core import interactiveshell
    from IPython.core.error import UsageError
    from tfteach.notebook import graph_magics
    tf = eager
    shell = interactiveshell.InteractiveShell.instance()
    graph_magics.register(shell)
    try:
        @tf.function
        def multiply_fn(a, b):
            return tf.matmul(a, b)

        shell.user_ns["multiply_fn"] = multiply_fn
        with pytest.raises(UsageError, match="has not been traced yet"):
            shell.run_line_magic("tfgraph", "multiply_fn")
        multiply_fn(tf.constant([[0.5, 0.5]]), tf.constant([[10.0], [1.0]]))
        multiply_fn(tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([[10.0], [1.0]]))
        shell.run_line_magic("tfgraph", "multiply_fn")
        view = graph_magics.last_view()       # the last of the two drawn: the second trace
        assert view.graph is multiply_fn.concrete_functions[1].graph
        names = {n["name"] for n in view.export["nodes"]}
        assert names == {"a", "b", "MatMul", "Identity"}
        assert "concrete function 2 of 2" in view.export["note"]
    finally:
        graph_magics.unregister(shell)


def test_tfgraph_cell_magic_shows_the_function_run(eager):
    from IPython.core import interactiveshell
    from tfteach.notebook import graph_magics
    shell = interactiveshell.InteractiveShell.instance()
    graph_magics.register(shell)
    try:
        shell.user_ns["tf"] = eager
        result = shell.run_cell(
            "%%tfgraph\n"
            "@tf.function\n"
            "def double(x):\n"
            "    return x * 2.0\n"
            "y = double(tf.constant([1.0, 2.0]))\n")
        assert result.error_in_exec is None
        view = graph_magics.last_view()
        assert view.graph is shell.user_ns["double"].concrete_functions[0].graph
        assert len(view.runs) == 1                       # the call, run by a Session
        np.testing.assert_array_equal(shell.user_ns["y"].numpy(), [2.0, 4.0])
    finally:
        graph_magics.unregister(shell)


def test_autograph_if_and_while_on_tensors(eager):
    tf = eager

    @tf.function
    def relu(x):
        if x > 0:
            y = x
        else:
            y = 0.0 * x
        return y

    assert float(relu(tf.constant(3.0))) == 3.0 and float(relu(tf.constant(-2.0))) == 0.0
    assert len(relu.concrete_functions) == 1                  # one graph for both signs
    types = {op.type for op in relu.concrete_functions[0].graph.get_operations()}
    assert {"Switch", "Merge"} <= types

    @tf.function
    def collatz_steps(n):
        steps = tf.constant(0)
        while n > 1:
            n = tf.where(tf.equal(n % 2, 0), n // 2, 3 * n + 1)
            steps += 1
        return steps

    def python_steps(n):
        steps = 0
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps
    for n in (27, 6, 1):
        assert int(collatz_steps(tf.constant(n))) == python_steps(n)
    assert len(collatz_steps.concrete_functions) == 1


def test_autograph_keeps_python_control_flow_and_runs_branch_updates(eager):
    tf = eager
    traced = []

    @tf.function
    def f(x, training=False):
        if training:                      # a Python value: decided at trace time
            x = x * 2.0
        k = 0
        while k < 3:                      # a Python loop: unrolled
            k += 1
            traced.append(k)
        return x + k

    assert float(f(tf.constant(1.0))) == 4.0 and float(f(tf.constant(1.0), True)) == 5.0
    assert traced == [1, 2, 3, 1, 2, 3]

    v = tf.Variable(0.0)

    @tf.function
    def add_if_positive(x):
        if x > 0:
            v.assign_add(x)               # an update in a branch runs when taken
        return v.read_value()

    assert float(add_if_positive(tf.constant(2.0))) == 2.0
    assert float(add_if_positive(tf.constant(-1.0))) == 2.0
    assert float(add_if_positive(tf.constant(0.5))) == 2.5

    @tf.function
    def one_branch(x):
        if x > 0:
            z = x
        return z

    with pytest.raises(ValueError, match="must also be assigned in the else branch"):
        one_branch(tf.constant(1.0))

    @tf.function
    def with_return(x):
        if x > 0:                         # not converted (a return inside): TF 1's error
            return x
        return -x

    with pytest.raises(TypeError, match="Using a `tf.Tensor` as a Python `bool`"):
        with_return(tf.constant(1.0))
