"""The array/shape ops against NumPy: values, dtypes, static shapes and TF 1.15's errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tfteach as tf
from tfteach.errors import InvalidArgumentError

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
M = np.arange(12, dtype=np.float32).reshape(3, 4)
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.bool_]


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def check(tensor, expected, feed=None, static=None):
    """Runs `tensor`, compares with NumPy's `expected` (value and dtype) and the static shape."""
    expected = np.asarray(expected)
    got = np.asarray(run(tensor, feed))
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)
    want_static = list(expected.shape) if static is None else static
    assert tensor.shape.as_list() == want_static if want_static is not None else \
        tensor.shape.ndims is None


def raises_at_build(message, fn):
    with pytest.raises(ValueError) as info:
        fn()
    assert str(info.value) == message or str(info.value).startswith(message), str(info.value)


def raises_at_run(message, tensor, feed=None):
    with pytest.raises(InvalidArgumentError) as info:
        run(tensor, feed)
    assert str(info.value).splitlines()[0] == message


# -- reshape / shape / size / rank ---------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_dtypes(dtype):
    x = np.arange(6).astype(dtype)
    check(tf.reshape(x, [2, -1]), x.reshape(2, 3))
    check(tf.reshape(x, [3, 1, 2]), x.reshape(3, 1, 2))


def test_reshape_scalars_empty_and_strings():
    check(tf.reshape(5, [1, 1]), np.array([[5]], np.int32))
    check(tf.reshape([[5.0]], []), np.float32(5.0))
    check(tf.reshape(np.zeros((0, 3), np.float32), [3, 0]), np.zeros((3, 0), np.float32))
    assert run(tf.reshape(["a", "b"], [2, 1])).tolist() == [[b"a"], [b"b"]]


def test_reshape_static_shapes():
    p = tf.placeholder(tf.float32, [None, 6])
    assert tf.reshape(p, [-1, 2, 3]).shape.as_list() == [None, 2, 3]
    assert tf.reshape(p, [3, -1]).shape.as_list() == [3, None]
    assert tf.reshape(M, [-1, 2]).shape.as_list() == [6, 2]
    assert tf.reshape(p, tf.placeholder(tf.int32, [3])).shape.as_list() == [None] * 3
    assert tf.reshape(p, tf.placeholder(tf.int32)).shape.ndims is None
    n = tf.placeholder(tf.int32, [])
    r = tf.reshape(p, [-1, n])                    # auto-packed shape
    assert r.op.inputs[1].op.type == "Pack" and r.shape.as_list() == [None, None]
    assert tf.reshape(M, tf.shape(M)).shape.as_list() == [3, 4]
    out = run(r, {p: np.zeros((2, 6)), n: 4})
    assert out.shape == (3, 4)


def test_reshape_errors():
    raises_at_build(
        "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for 'Reshape' (op: "
        "'Reshape') with input shapes: [2,3], [1] and with input tensors computed as partial "
        "shapes: input[1] = [4].", lambda: tf.reshape(np.zeros((2, 3)), [4]))
    raises_at_build("Dimension size must be evenly divisible by 4 but is 6 for 'Reshape_1'",
                    lambda: tf.reshape(np.zeros((2, 3)), [-1, 4]))
    raises_at_build("Invalid value in tensor used for shape: -2", lambda: tf.reshape(M, [-2, 6]))
    p = tf.placeholder(tf.float32)
    x = np.zeros((2, 3))
    raises_at_run("Input to reshape is a tensor with 6 values, but the requested shape has 4",
                  tf.reshape(p, [4]), {p: x})
    raises_at_run("Input to reshape is a tensor with 6 values, but the requested shape requires "
                  "a multiple of 4", tf.reshape(p, [-1, 4]), {p: x})
    raises_at_run("Only one input size may be -1, not both 0 and 1", tf.reshape(p, [-1, -1]),
                  {p: x})
    raises_at_run("Reshape cannot infer the missing input size for an empty tensor unless all "
                  "specified input sizes are non-zero", tf.reshape(p, [0, -1]),
                  {p: np.zeros((0, 3))})
    with pytest.raises(TypeError, match="parameter 'shape' has DataType float32"):
        tf.reshape(M, [1.0, 12.0])


def test_shape_size_rank():
    p = tf.placeholder(tf.float32, [None, 4])
    feed = {p: M}
    check(tf.shape(p), np.array([3, 4], np.int32), feed, static=[2])
    check(tf.shape(p, out_type=tf.int64), np.array([3, 4], np.int64), feed, static=[2])
    check(tf.size(p), np.int32(12), feed)
    check(tf.rank(p), np.int32(2), feed)
    # Fully known shapes are constants, as in TF 1.x.
    assert tf.shape(M).op.type == "Const" and tf.size(M).op.type == "Const"
    assert tf.rank(tf.placeholder(tf.float32)).op.type == "Rank"
    check(tf.shape(5), np.zeros(0, np.int32))
    assert tf.shape(tf.placeholder(tf.float32)).shape.as_list() == [None]
    a, b = tf.shape_n([p, tf.constant(1.0)])
    assert run([a, b], feed)[0].tolist() == [3, 4] and b.shape.as_list() == [0]
    with pytest.raises(TypeError):
        tf.shape(M, out_type=tf.float32)


# -- expand_dims / squeeze ------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    check(tf.expand_dims(M, axis), np.expand_dims(M, axis))


def test_expand_dims_aliases_and_errors():
    check(tf.expand_dims(3, dim=0), np.array([3], np.int32))
    with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'"):
        tf.expand_dims(M, 0, dim=0)
    with pytest.raises(ValueError, match="Must specify an axis"):
        tf.expand_dims(M)
    raises_at_build("dim 3 not in the interval [-3, 2]. for 'ExpandDims_1' (op: 'ExpandDims') "
                    "with input shapes: [3,4], [] and with computed input tensors: "
                    "input[1] = <3>.", lambda: tf.expand_dims(M, 3))
    a = tf.placeholder(tf.int32, [])
    e = tf.expand_dims(M, a)
    assert e.shape.ndims is None
    raises_at_run("Tried to expand dim index 5 for tensor with 2 dimensions.", e, {a: 5})


def test_squeeze():
    x = np.zeros((1, 2, 1, 3), np.int64)
    check(tf.squeeze(x), np.squeeze(x))
    check(tf.squeeze(x, [0]), np.squeeze(x, 0))
    check(tf.squeeze(x, axis=-2), np.squeeze(x, -2))
    check(tf.squeeze(x, squeeze_dims=[0, 2]), np.squeeze(x, (0, 2)))
    assert tf.squeeze(tf.placeholder(tf.float32, [None, 2, 1])).shape.ndims is None
    assert tf.squeeze(tf.placeholder(tf.float32, [None, 2]), [0]).shape.as_list() == [2]


def test_squeeze_errors():
    raises_at_build("Can not squeeze dim[1], expected a dimension of 1, got 3 for 'Squeeze'",
                    lambda: tf.squeeze(A, [1]))
    raises_at_build("squeeze_dims[0] not in [-3,3). for", lambda: tf.squeeze(A, [3]))
    p = tf.placeholder(tf.float32, [None, 2])
    raises_at_run("Can not squeeze dim[0], expected a dimension of 1, got 3", tf.squeeze(p, [0]),
                  {p: np.zeros((3, 2))})


# -- transpose / reverse ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_transpose(dtype):
    x = A.astype(dtype)
    check(tf.transpose(x), x.T)
    check(tf.transpose(x, [1, 0, 2]), x.transpose(1, 0, 2))
    check(tf.transpose(x, [2, 0, 1]),
          x.transpose(2, 0, 1))


def test_transpose_unknown_rank_and_scalar():
    p = tf.placeholder(tf.float32)
    t = tf.transpose(p)
    assert t.shape.ndims is None
    np.testing.assert_array_equal(run(t, {p: A}), A.T)
    check(tf.transpose(5.0), np.float32(5.0))
    check(tf.transpose(np.zeros((0, 2))), np.zeros((2, 0)))


def test_transpose_errors():
    raises_at_build("Dimension must be 3 but is 2 for 'transpose'", lambda: tf.transpose(A, [0, 1]))
    raises_at_build("perm dim 3 is out of range of input rank 3 for 'transpose_1' (op: "
                    "'Transpose') with input shapes: [2,3,4], [3] and with computed input "
                    "tensors: input[1] = <0 1 3>.", lambda: tf.transpose(A, [0, 1, 3]))
    raises_at_run("2 is missing from {0,1,1}.", tf.transpose(A, [0, 1, 1]))
    p = tf.placeholder(tf.float32)
    raises_at_run("transpose expects a vector of size 3. But input(1) is a vector of size 2",
                  tf.transpose(p, [1, 0]), {p: A})


def test_reverse():
    check(tf.reverse(A, [0, -1]), A[::-1, :, ::-1])
    check(tf.reverse_v2(M, [1]), M[:, ::-1])
    check(tf.reverse(M, []), M)
    raises_at_build("'axis'[0] = 2 is out of valid range [0, 1", lambda: tf.reverse(M, [2]))
    raises_at_build("axis 1 specified more than once.", lambda: tf.reverse(M, [1, -1]))


# -- concat / stack / unstack / split --------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_concat(axis):
    check(tf.concat([M, M + 1], axis), np.concatenate([M, M + 1], axis))


def test_concat_special_cases():
    check(tf.concat([M], 0), M)
    check(tf.concat([[1, 2], [3]], 0), np.array([1, 2, 3], np.int32))
    check(tf.concat([tf.constant([1.5]), [2]], 0), np.array([1.5, 2], np.float32))
    check(tf.concat([np.zeros((0, 2), np.float32), np.ones((1, 2), np.float32)], 0),
          np.ones((1, 2), np.float32))
    assert run(tf.concat([["a"], ["b"]], 0)).tolist() == [b"a", b"b"]
    p = tf.placeholder(tf.float32, [None, 4])
    assert tf.concat([p, M], 0).shape.as_list() == [None, 4]
    assert tf.concat([p, M], 1).shape.as_list() == [3, 8]
    assert tf.concat([p, M], tf.placeholder(tf.int32)).shape.as_list() == [None, None]


def test_concat_errors():
    raises_at_build("Dimension 0 in both shapes must be equal, but are 3 and 2. Shapes are [3] "
                    "and [2]. for 'concat' (op: 'ConcatV2') with input shapes: [3,4], [2,4], [] "
                    "and with computed input tensors: input[2] = <1>.",
                    lambda: tf.concat([M, M[:2]], 1))
    raises_at_build("Shape must be rank 2 but is rank 1", lambda: tf.concat([M, [1.0]], 0))
    raises_at_build("Shape must be at least rank 3 but is rank 2", lambda: tf.concat([M, M], 2))
    with pytest.raises(TypeError, match=r"Tensors in list passed to 'values' of 'ConcatV2' Op "
                                        r"have types \[float32, int32\] that don't all match."):
        tf.concat([tf.constant(M), tf.constant([[1, 2, 3, 4]])], 0)
    p = tf.placeholder(tf.float32)
    raises_at_run("ConcatOp : Dimensions of inputs should match: shape[0] = [2,3] vs. shape[1] "
                  "= [3,4]", tf.concat([p, M], 1), {p: np.zeros((2, 3))})
    raises_at_run("ConcatOp : Expected concatenating dimensions in the range [-1, 1), but got 1",
                  tf.concat([p, M], 1), {p: np.zeros(3)})


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack(axis):
    check(tf.stack([M, M * 2, M * 3], axis), np.stack([M, M * 2, M * 3], axis))


def test_stack_autopacks_and_errors():
    n = tf.placeholder(tf.int32, [])
    packed = tf.stack([n, 2])
    assert packed.op.type == "Pack" and packed.shape.as_list() == [2]
    assert run(packed, {n: 7}).tolist() == [7, 2]
    assert tf.stack([1, 2]).op.type == "Const"
    # (TF's shape function really names values[0] twice when the first pair differs.)
    raises_at_build("Shapes of all inputs must match: values[0].shape = [3,4] != values[0].shape "
                    "= [3,4] for", lambda: tf.stack([M, M[:2]], axis=1))
    with pytest.raises(ValueError, match=r"axis = 3 not in \[-3, 3\)"):
        tf.stack([M, M], axis=3)
    p = tf.placeholder(tf.float32)
    raises_at_run("Shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape "
                  "= [3,4]", tf.stack([p, M], 1), {p: np.zeros((2, 3))})


def test_autopacking_conversion():
    n = tf.placeholder(tf.int32, [])
    t = tf.convert_to_tensor([[n, 1], [2, 3]])
    assert t.op.type == "Pack" and t.shape.as_list() == [2, 2] and t.dtype == tf.int32
    assert run(t, {n: 5}).tolist() == [[5, 1], [2, 3]]
    z = tf.zeros([n, 10])
    assert z.op.type == "Fill" and z.shape.as_list() == [None, 10]
    assert run(z, {n: 2}).shape == (2, 10)
    assert tf.convert_to_tensor([1, 2]).op.type == "Const"


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(axis):
    got = run(tf.unstack(A, axis=axis))
    for g, w in zip(got, np.moveaxis(A, axis, 0)):
        np.testing.assert_array_equal(g, w)
    assert len(got) == A.shape[axis]


def test_unstacked_rows_of_a_variable_stay_what_they_were_read_as():
    # Unpack's outputs are views of its input (array_kernels.unpack): rows fetched in one
    # run, or used in the run that updates the variable, keep the values read, as
    # TensorFlow's copies do, through in-place optimizer updates and assign_add.
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = tf.unstack(v)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v * v))
    add = tf.assign_add(v, tf.ones([3, 2]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fetched = sess.run(rows)
        for op in (train, add, train):
            sess.run(op)
        np.testing.assert_array_equal(np.stack(fetched), np.arange(6).reshape(3, 2))
        before = sess.run(v)
        *with_update, _ = sess.run(rows + [train])
        np.testing.assert_array_equal(np.stack(with_update), before)
        np.testing.assert_allclose(sess.run(v), before * np.float32(0.8), rtol=1e-6)


def test_unstack_errors():
    with pytest.raises(ValueError, match=r"Cannot infer num from shape \(\?, 3\)"):
        tf.unstack(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match=r"axis = 2 not in \[-2, 2\)"):
        tf.unstack(M, axis=2)
    raises_at_build("Dimension must be 4 but is 3 for 'unstack'", lambda: tf.unstack(M, num=4))
    p = tf.placeholder(tf.float32, [None, 4])
    parts = tf.unstack(p, num=2)
    raises_at_run("Input shape axis 0 must equal 2, got shape [3,4]", parts, {p: M})


def test_split():
    got = run(tf.split(M, 2, axis=1))
    for g, w in zip(got, np.split(M, 2, axis=1)):
        np.testing.assert_array_equal(g, w)
    pieces = tf.split(M, [1, -1], 0)
    assert [p.shape.as_list() for p in pieces] == [[1, 4], [2, 4]]
    np.testing.assert_array_equal(run(pieces)[1], M[1:])
    assert [p.shape.as_list() for p in tf.split(M, tf.constant([2, 2]), 1)] == [[3, 2], [3, 2]]
    sizes = tf.placeholder(tf.int32, [2])
    unknown = tf.split(M, sizes, 1)
    assert unknown[0].shape.as_list() == [3, None]
    assert run(unknown, {sizes: [1, 3]})[1].shape == (3, 3)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_split_pieces_match_numpy_slices(data):
    """Random shapes, axes and size lists (zeros and one -1 allowed), fed at run time."""
    shape = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    length = shape[axis]
    cuts = sorted(data.draw(st.lists(st.integers(0, length), max_size=3)))
    sizes = np.diff([0] + cuts + [length]).tolist()
    wildcard = data.draw(st.sampled_from([None] + list(range(len(sizes)))))
    given_sizes = [(-1 if i == wildcard else n) for i, n in enumerate(sizes)]
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    p = tf.placeholder(tf.float32, [None] * len(shape))
    got = run(tf.split(p, given_sizes, axis=axis), {p: x})
    starts = np.cumsum([0] + sizes)
    for g, lo, hi in zip(got, starts[:-1], starts[1:]):
        want = np.take(x, np.arange(lo, hi), axis=axis)
        assert g.shape == want.shape
        np.testing.assert_array_equal(g, want)


def test_ops_with_a_list_of_one_output_give_the_array_itself():
    """Unpack / Split / SplitV / ShapeN / DynamicPartition making one output: sess.run
    hands back [array], as TF does (it once handed back [(array,)])."""
    p = tf.placeholder(tf.float32, [1, None])
    row = np.array([[1.0, 2.0, 3.0]], np.float32)
    got = run(tf.unstack(p) + tf.split(p, 1, 1) + tf.split(p, [-1], 0) + tf.shape_n([p]) +
              tf.dynamic_partition(p, [0], 1), {p: row})
    for value, want in zip(got, [row[0], row, row, [1, 3], row]):
        assert isinstance(value, np.ndarray)
        np.testing.assert_array_equal(value, want)


def test_split_fed_values_along_a_negative_axis_with_empty_pieces():
    cube = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    p, sizes = tf.placeholder(tf.float32, [None, None, None]), tf.placeholder(tf.int32, [3])
    got = run(tf.split(p, sizes, axis=-1), {p: cube, sizes: [2, 0, -1]})
    for g, want in zip(got, [cube[..., :2], cube[..., 2:2], cube[..., 2:]]):
        assert g.shape == want.shape
        np.testing.assert_array_equal(g, want)
    thirds = run(tf.split(p, 3, axis=-2), {p: cube})
    for i, g in enumerate(thirds):
        np.testing.assert_array_equal(g, cube[:, i:i + 1, :])


def test_split_errors():
    raises_at_build("Dimension size must be evenly divisible by 4 but is 3\n\tNumber of ways to "
                    "split should evenly divide the split dimension for 'split'",
                    lambda: tf.split(M, 4))
    raises_at_build("can't split axis of size 3 into pieces of size [1,1]",
                    lambda: tf.split(M, [1, 1]))
    raises_at_build("size_splits can only have one -1", lambda: tf.split(M, [1, -1, -1], 1))
    raises_at_build("Dimension size, given by scalar input 2 must be in range [-2, 2)",
                    lambda: tf.split(M, 2, axis=2))
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.split(M, tf.placeholder(tf.int32, [None]))
    p = tf.placeholder(tf.float32)
    raises_at_run("Number of ways to split should evenly divide the split dimension, but got "
                  "split_dim 0 (size = 6) and num_split 4", tf.split(p, 4), {p: np.zeros(6)})
    raises_at_run("Determined shape must either match input shape along split_dim exactly if "
                  "fully specified, or be less than the size of the input along split_dim if "
                  "not fully specified.  Got: 3", tf.split(p, [1, 2]), {p: np.zeros(6)})


# -- tile / pad -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_tile(dtype):
    x = M.astype(dtype)
    check(tf.tile(x, [2, 3]), np.tile(x, (2, 3)))
    check(tf.tile(x, [0, 1]), np.tile(x, (0, 1)))
    assert run(tf.tile(["a"], [2])).tolist() == [b"a", b"a"]


def test_tile_shapes_and_errors():
    assert tf.tile(M, [2, -1]).shape.as_list() == [6, None]
    assert tf.tile(tf.placeholder(tf.float32), [2, 3]).shape.as_list() == [None, None]
    raises_at_build("Shape must be rank 2 but is rank 1", lambda: tf.tile(M, [2]))
    p = tf.placeholder(tf.float32)
    raises_at_run("Expected multiples argument to be a vector of length 2 but got length 1",
                  tf.tile(p, [2]), {p: M})
    raises_at_run("Expected multiples[1] >= 0, but got -1", tf.tile(M, [2, -1]))


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "reflect"])
def test_pad(mode):
    paddings = [[1, 2], [2, 1]]
    check(tf.pad(M, paddings, mode), np.pad(M, paddings, mode=mode.lower()))


def test_pad_constant_values_dtypes_and_shapes():
    check(tf.pad(M, [[1, 0], [0, 1]], constant_values=-1.5),
          np.pad(M, [[1, 0], [0, 1]], constant_values=-1.5))
    assert tf.pad(M, [[1, 0], [0, 1]], constant_values=2).op.type == "PadV2"
    assert tf.pad(M, [[1, 0], [0, 1]]).op.type == "Pad"
    check(tf.pad([True], [[1, 1]]), np.array([False, True, False]))
    assert run(tf.pad(["a"], [[1, 0]])).tolist() == [b"", b"a"]
    assert tf.pad(tf.placeholder(tf.float32, [None, 3]), [[1, 1], [1, 2]]).shape.as_list() == \
        [None, 6]


def test_pad_errors():
    raises_at_build("Shape must be rank 1 but is rank 2", lambda: tf.pad(M, [[1, 1]]))
    raises_at_build("Paddings must be non-negative for 'Pad_1' (op: 'Pad') with input shapes: "
                    "[3,4], [2,2] and with computed input tensors: input[1] = <[1 1][-1 0]>.",
                    lambda: tf.pad(M, [[1, 1], [-1, 0]]))
    with pytest.raises(ValueError, match="Unknown padding mode: FOO"):
        tf.pad(M, [[0, 0], [0, 0]], "foo")
    raises_at_run("paddings must be less than the dimension size: 3, 0 not less than 3",
                  tf.pad(M, [[3, 0], [0, 0]], "REFLECT"))
    raises_at_run("paddings must be no greater than the dimension size: 4, 0 greater than 3",
                  tf.pad(M, [[4, 0], [0, 0]], "SYMMETRIC"))


# -- fill family -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [tf.float32, tf.int32, tf.int64, tf.bool, tf.float64])
def test_zeros_ones(dtype):
    check(tf.zeros([2, 3], dtype), np.zeros((2, 3), dtype.np))
    check(tf.ones((3,), dtype), np.ones(3, dtype.np))
    check(tf.zeros_like(M, dtype=dtype), np.zeros((3, 4), dtype.np))
    check(tf.ones_like(M, dtype=dtype), np.ones((3, 4), dtype.np))


def test_zeros_ones_forms():
    z = tf.zeros([2, 3])
    assert z.op.type == "Const" and z.op.name == "zeros"
    big = tf.ones([40, 40])
    assert big.op.type == "Fill" and big.shape.as_list() == [40, 40]
    check(big, np.ones((40, 40), np.float32))
    check(tf.zeros([]), np.float32(0))
    check(tf.zeros(tf.TensorShape([2])), np.zeros(2, np.float32))
    assert run(tf.zeros([2], tf.string)).tolist() == [b"", b""]
    p = tf.placeholder(tf.float32, [None, 2])
    for t in (tf.zeros_like(p), tf.ones_like(p), tf.zeros(tf.shape(p))):
        assert t.shape.as_list() == [None, 2]
        assert run(t, {p: np.zeros((3, 2))}).shape == (3, 2)
    assert tf.zeros_like(p).op.type == "ZerosLike"


def test_zeros_ones_take_dimension_objects_at_any_size():
    # note 000's k-means: tf.ones((points.get_shape()[0], 1)) with 10,000 points (a Fill,
    # not a Const) failed to convert the Dimension; TF 1.15 accepts it at any size.
    big = tf.placeholder(tf.float32, [2000, 3]).shape[0]
    small = tf.placeholder(tf.float32, [5, 3]).shape[0]
    for dim, n in ((big, 2000), (small, 5)):
        t = tf.ones((dim, 1))
        assert t.shape.as_list() == [n, 1]
        check(t, np.ones((n, 1), np.float32))
    check(tf.zeros([big, tf.Dimension(2)], tf.int64), np.zeros((2000, 2), np.int64))


def test_fill():
    check(tf.fill([2, 2], 7), np.full((2, 2), 7, np.int32))
    check(tf.fill([], 1.5), np.float32(1.5))
    dims = tf.placeholder(tf.int32, [2])
    assert tf.fill(dims, 1.0).shape.as_list() == [None, None]
    raises_at_build("Fill dimensions must be >= 0", lambda: tf.fill([-1, 2], 1.0))
    raises_at_build("Shape must be rank 0 but is rank 1", lambda: tf.fill([2], [1.0]))


def test_fill_with_fed_dims_checks_them_when_it_runs():
    # Small outputs skip the check against the machine's memory (fill_kernels.py); the
    # rest get TensorFlow's errors (the messages TF 2.21's graph mode gives too).
    dims = tf.placeholder(tf.int32, [None])
    value = tf.placeholder(tf.float32, [])
    filled = tf.fill(dims, value)
    with tf.Session() as sess:
        for shape in ([100, 1], [3, 0], [], [2, 3, 4], [300, 1000]):
            got = sess.run(filled, {dims: shape, value: -2.5})
            np.testing.assert_array_equal(got, np.full(shape, -2.5, np.float32))
            assert got.dtype == np.float32
        with pytest.raises(tf.errors.ResourceExhaustedError,
                           match=r"OOM when allocating tensor with shape\[1073741824,"
                                 r"1073741824\] and type float on .*CPU:0 by allocator cpu"):
            sess.run(filled, {dims: [2 ** 30, 2 ** 30], value: 1.0})
        with pytest.raises(InvalidArgumentError,
                           match=r"would have more than 2\*\*63 - 1 elements"):
            sess.run(filled, {dims: [2 ** 31 - 1] * 3, value: 1.0})
        with pytest.raises(InvalidArgumentError, match="Dimension -1 must be >= 0"):
            sess.run(filled, {dims: [-1, 2], value: 1.0})
    words = tf.fill(tf.placeholder(tf.int32, [1]), "ab")
    with tf.Session() as sess:
        assert sess.run(words, {words.op.inputs[0]: [3]}).tolist() == [b"ab"] * 3


@pytest.mark.parametrize("args,kwargs", [
    ((5,), {}), ((1, 10, 3), {}), ((5, 0, -2), {}), ((0., 1., 0.1), {}), ((3,), {"dtype":
                                                                               tf.float64}),
    ((0, 1.5), {}), ((2, 2), {}), ((10, 3, -3), {"dtype": tf.int64})])
def test_range(args, kwargs):
    dtype = kwargs.get("dtype")
    start, limit, delta = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
    np_dtype = dtype.np.type if dtype is not None else (
        np.float32 if any(isinstance(a, float) for a in args) else np.int32)
    # TF computes start + i * delta in the output dtype.
    size = len(np.arange(start, limit, delta))
    want = (np_dtype(start) + np.arange(size).astype(np_dtype) * np_dtype(delta)).astype(
        np_dtype)
    check(tf.range(*args, **kwargs), want)


def test_range_dtype_inference_and_errors():
    assert tf.range(tf.constant(3, tf.int64)).dtype == tf.int64
    assert tf.range(3, 5.0).dtype == tf.float32
    assert tf.range(tf.placeholder(tf.int32, [])).shape.as_list() == [None]
    raises_at_build("Requires start <= limit when delta > 0: 5/1", lambda: tf.range(5, 1))
    raises_at_build("Requires delta != 0", lambda: tf.range(0, 5, 0))
    n = tf.placeholder(tf.int32, [])
    raises_at_run("Requires start >= limit when delta < 0: 0/3", tf.range(0, n, -1), {n: 3})


def test_linspace():
    got = run(tf.linspace(0.0, 1.0, 5))
    np.testing.assert_allclose(got, np.linspace(0, 1, 5), rtol=1e-6)
    assert got.dtype == np.float32 and tf.lin_space(0.0, 1.0, 5).shape.as_list() == [5]
    check(tf.linspace(2.0, 3.0, 1), np.array([2.0], np.float32))
    raises_at_build("Requires num > 0: 0", lambda: tf.linspace(0.0, 1.0, 0))
    with pytest.raises(TypeError):
        tf.linspace(0, 1, 3)


def test_eye():
    check(tf.eye(3), np.eye(3, dtype=np.float32))
    check(tf.eye(2, 4, dtype=tf.int32), np.eye(2, 4, dtype=np.int32))
    check(tf.eye(2, batch_shape=[3]), np.broadcast_to(np.eye(2, dtype=np.float32), (3, 2, 2)))
    check(tf.eye(0), np.zeros((0, 0), np.float32))
    with pytest.raises(ValueError):
        tf.eye(-1)


# -- gather / gather_nd / one_hot / unsorted_segment_sum ------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_gather(dtype):
    x = A.astype(dtype)
    check(tf.gather(x, [1, 0, 1]), x[[1, 0, 1]])
    check(tf.gather(x, [[2], [0]], axis=1), np.take(x, [[2], [0]], axis=1))
    check(tf.gather(x, np.int64(3), axis=-1), np.take(x, 3, axis=-1))
    check(tf.gather(x, np.zeros(0, np.int32)), x[:0])


@pytest.mark.parametrize("dtype", DTYPES + [np.float16])
def test_gather_one_scalar_index_on_axis_0(dtype):
    # dynamic_rnn's per-iteration read takes a shorter path (index_kernels._gather_one_row):
    # the same values as np.take, and its own array (writing it leaves params alone).
    x = A.astype(dtype)
    for index in (np.int32(0), np.int64(1), 1):
        check(tf.gather(x, index), np.take(x, int(index), axis=0))
    check(tf.gather(np.arange(5).astype(dtype), np.int32(4)), np.take(np.arange(5).astype(dtype), 4))
    check(tf.gather(x, np.int32(1), axis=-3), x[1])           # axis -3 is axis 0 here
    from tfteach.kernels.cpu.index_kernels import gather
    got = gather(None, x, np.int32(1), 0)
    assert not np.shares_memory(got, x) and got.flags.c_contiguous and got.flags.writeable
    assert type(gather(None, x[0, 0], np.int32(2), 0)) is np.ndarray      # 0-d, as TF's
    assert run(tf.gather(["a", "b", "c"], 1)) == b"b"


def test_gather_strings_and_shapes():
    assert run(tf.gather(["a", "b", "c"], [2, 0])).tolist() == [b"c", b"a"]
    p = tf.placeholder(tf.float32, [None, 3])
    assert tf.gather(p, [0, 1], axis=1).shape.as_list() == [None, 2]
    assert tf.gather(p, [0], axis=tf.placeholder(tf.int32, [])).shape.as_list() == [None, None]


def test_gather_errors():
    raises_at_run("indices[1] = 7 is not in [0, 5)", tf.gather(np.zeros((5, 2)), [1, 7]))
    raises_at_run("indices[0,1] = -1 is not in [0, 5)", tf.gather(np.zeros(5), [[0, -1]]))
    raises_at_run("indices = 9 is not in [0, 5)", tf.gather(np.zeros(5), 9))
    raises_at_run("indices = -1 is not in [0, 5)", tf.gather(np.zeros((5, 2)), -1))
    raises_at_run("indices = 0 is not in [0, 0)", tf.gather(np.zeros((0, 2)), 0))
    raises_at_build("Shape must be at least rank 3 but is rank 2", lambda: tf.gather(M, [0],
                                                                                     axis=2))
    raises_at_build("Shape must be at least rank 1 but is rank 0", lambda: tf.gather(3, [0]))
    with pytest.raises(TypeError, match="parameter 'indices' has DataType float32"):
        tf.gather(M, [0.0])


def test_gather_nd():
    check(tf.gather_nd(M, [[1, 2], [0, 0]]), M[[1, 0], [2, 0]])
    check(tf.gather_nd(A, [[1], [0]]), A[[1, 0]])
    check(tf.gather_nd(A, [[[1, 2]]]), A[[[1]], [[2]]])
    raises_at_run("indices[0] = [1, 7] does not index into param shape [3,4]",
                  tf.gather_nd(M, [[1, 7]]))
    raises_at_build("indices.shape[-1] must be <= params.rank, but saw indices shape: [1,3] and "
                    "params shape: [3,4]", lambda: tf.gather_nd(M, [[1, 2, 3]]))
    assert run(tf.gather_nd(["a", "b"], [[1]])).tolist() == [b"b"]


def _one_hot_numpy(indices, depth, axis=-1, on=1.0, off=0.0, dtype=np.float32):
    indices = np.asarray(indices)
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(dtype)
    return np.moveaxis(out, -1, axis)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    indices = np.array([[0, 2, 5], [-1, 1, 1]], np.int32)
    check(tf.one_hot(indices, 3, axis=axis), _one_hot_numpy(indices, 3, axis))


def test_one_hot_values_and_dtypes():
    check(tf.one_hot([1, 0], 2, on_value=5, off_value=-1), _one_hot_numpy(
        [1, 0], 2, on=5, off=-1, dtype=np.int32))
    check(tf.one_hot([1], 2, dtype=tf.int64), _one_hot_numpy([1], 2, dtype=np.int64))
    check(tf.one_hot(np.array([1], np.int64), 3, True, False), _one_hot_numpy(
        [1], 3, on=True, off=False, dtype=np.bool_))
    assert tf.one_hot([0, 1], tf.placeholder(tf.int32, [])).shape.as_list() == [2, None]
    with pytest.raises(TypeError, match="dtype <dtype: 'int32'> of on_value does not match "
                                        "dtype <dtype: 'float32'> of off_value"):
        tf.one_hot([0], 2, on_value=5, off_value=1.0)
    with pytest.raises(TypeError, match="of on_value does not match dtype parameter"):
        tf.one_hot([0], 2, on_value=1, dtype=tf.float32)
    raises_at_build("Dimension size, given by scalar input 1, must be non-negative but is -1",
                    lambda: tf.one_hot([0], -1))
    raises_at_run("Expected axis to be -1 or between [0, 2).  But received: 2",
                  tf.one_hot([0, 1], 3, axis=2))


def test_unsorted_segment_sum():
    ids = np.array([0, 2, 0])
    want = np.zeros((3, 4), np.float32)
    np.add.at(want, ids, M)
    check(tf.unsorted_segment_sum(M, ids, 3), want)
    data = np.arange(6, dtype=np.int64).reshape(2, 3)
    ids2 = np.array([[0, 1, -1], [1, 1, 0]])
    want2 = np.zeros(2, np.int64)
    np.add.at(want2, ids2[ids2 >= 0], data[ids2 >= 0])
    check(tf.unsorted_segment_sum(data, ids2, 2), want2)
    n = tf.placeholder(tf.int32, [])
    assert tf.unsorted_segment_sum(M, ids, n).shape.as_list() == [None, 4]
    raises_at_run("segment_ids[1] = 5 is out of range [0, 3)",
                  tf.unsorted_segment_sum(M, [0, 5, 1], 3))
    raises_at_build("Dimensions must be equal, but are 3 and 2",
                    lambda: tf.unsorted_segment_sum(M, [0, 1], 2))


# -- where / boolean_mask ------------------------------------------------------------------------
def test_where_coordinates():
    cond = np.array([[True, False], [False, True], [True, True]])
    t = tf.where(cond)
    check(t, np.argwhere(cond).astype(np.int64), static=[None, 2])
    check(tf.where(np.array([0, 3, 0, 1])), np.array([[1], [3]], np.int64), static=[None, 1])
    assert tf.where(tf.placeholder(tf.bool)).shape.as_list() == [None, None]


def test_where_select_tf1_rules():
    check(tf.where([True, False], [1, 2], [3, 4]), np.array([1, 4], np.int32))
    check(tf.where([True, False, True], M, -M), np.where(np.array([1, 0, 1], bool)[:, None],
                                                        M, -M))
    check(tf.where(False, M, -M), -M)
    raises_at_build("Dimension 1 in both shapes must be equal, but are 4 and 3. Shapes are [3,4] "
                    "and [3,3].", lambda: tf.where([True, False, True], M, M[:, :3]))
    raises_at_build("Dimension 0 in both shapes must be equal, but are 3 and 1. Shapes are [3,4] "
                    "and [1,4].", lambda: tf.where([[True, False, True, True]], M, M))
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        tf.where(True, M)
    c = tf.placeholder(tf.bool)
    raises_at_run("Number of batches of 'then' must match size of 'cond', but saw: 3 vs. 2",
                  tf.where(c, M, M), {c: [True, False]})


def test_where_v2_broadcasts():
    cond = np.array([True, False, True, False])
    check(tf.where_v2(cond, M, 0.0), np.where(cond, M, np.float32(0)))
    check(tf.where_v2(cond), np.argwhere(cond).astype(np.int64), static=[None, 1])


def test_boolean_mask():
    mask = np.array([True, False, True])
    check(tf.boolean_mask(M, mask), M[mask], static=[None, 4])
    mask2 = np.array([[True, False, True], [False, False, True]])
    check(tf.boolean_mask(A, mask2), A[mask2], static=[None, 4])
    cols = np.array([False, True, True, False])
    check(tf.boolean_mask(M, cols, axis=1), M[:, cols], static=[3, None])
    check(tf.constant(M)[tf.constant(mask)], M[mask], static=[None, 4])
    with pytest.raises(ValueError, match="mask cannot be scalar."):
        tf.boolean_mask(M, True)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        tf.boolean_mask(M, [True, False])
