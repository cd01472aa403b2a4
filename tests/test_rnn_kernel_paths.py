"""The shorter paths of the kernels an RNN step runs ~2,000 times (issue 20, docs/rnn.md
"Speed"): each gives the bits, dtypes, shapes and errors of the general path it skips
(NumPy's general function, or the kernel's own general code), odd inputs included."""
import numpy as np
import pytest

from bit_helpers import same_bits
import tfteach as tf
from tfteach.errors import InvalidArgumentError
from tfteach.kernels.cpu import row_appends, shape_kernels


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def odd_floats(shape, dtype=np.float32, seed=0):
    """Random values with -0.0, inf and NaN among them."""
    x = np.random.RandomState(seed).randn(*shape).astype(dtype)
    flat = x.reshape(-1)
    for i, v in zip(range(0, flat.size, 7), (-0.0, np.inf, -np.inf, np.nan)):
        flat[i] = v
    return x


# -- ExpandDims: a reshape instead of np.expand_dims ----------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4), (2, 1, 3)])
@pytest.mark.parametrize("dim_dtype", [np.int32, np.int64])
def test_expand_dims_is_numpys_view_for_every_axis(shape, dim_dtype):
    x = odd_floats(shape) if shape else np.full((), -0.0, np.float32)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        for dim in (np.array(axis, dim_dtype), np.array([axis], dim_dtype)):
            got = shape_kernels.expand_dims(None, x, dim)
            same_bits(got, np.expand_dims(x, axis))
            assert np.shares_memory(got, x) or x.size == 0      # a view, as before


def test_expand_dims_of_non_contiguous_and_int_inputs():
    x = np.arange(24, dtype=np.int64).reshape(4, 6)[:, ::2].T        # strided
    for axis in (0, 1, 2, -1, -3):
        same_bits(shape_kernels.expand_dims(None, x, np.int32(axis)), np.expand_dims(x, axis))
    same_bits(shape_kernels.expand_dims(None, [True, False], np.int32(-1)),
              np.array([[True], [False]]))


def test_expand_dims_errors_are_tensorflows():
    m = tf.constant(np.zeros((3, 4), np.float32))
    d = tf.placeholder(tf.int32)
    for bad in (3, -4):
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.expand_dims(m, d), {d: bad})
        assert str(info.value).splitlines()[0] == (
            "Tried to expand dim index %d for tensor with 2 dimensions." % bad)
    with pytest.raises(InvalidArgumentError) as info:
        run(tf.expand_dims(m, d), {d: [0, 1]})
    assert str(info.value).splitlines()[0] == "'dim' must be a tensor with a single value"


# -- ConcatV2 in a loop: rows appended after the previous result ----------------------------
def test_append_rows_matches_concatenate_and_keeps_every_earlier_view():
    rows = [odd_floats((k, 3, 2), seed=k) for k in (1, 1, 2, 0, 3, 1, 5, 1)]
    so_far, seen = np.zeros((0, 3, 2), np.float32), []
    for r in rows:
        want = np.concatenate([so_far, r], axis=0)
        so_far = row_appends.append_rows(so_far, r)
        same_bits(so_far, want)
        assert so_far.flags.c_contiguous and so_far.flags.writeable
        seen.append((so_far, want.copy()))
    for view, want in seen:                  # later appends wrote none of their rows
        same_bits(view, want)


def test_append_rows_twice_onto_one_array_copies_the_second_time():
    a = row_appends.append_rows(np.ones((1, 2), np.float64), np.full((1, 2), 2.0))
    b = row_appends.append_rows(a, np.full((1, 2), 3.0))
    c = row_appends.append_rows(a, np.full((1, 2), 4.0))        # a branch off `a`
    same_bits(b, [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    same_bits(c, [[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]])
    assert not np.shares_memory(b, c)
    same_bits(a, [[1.0, 1.0], [2.0, 2.0]])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.bool_, np.float16, np.complex64,
                                   object])
def test_append_rows_other_dtypes_and_strided_rows(dtype):
    base = np.arange(40).reshape(8, 5)
    so_far = np.zeros((0, 3), dtype)
    for i in range(4):
        r = base[2 * i:2 * i + 2, ::2].astype(dtype)         # strided source rows
        want = np.concatenate([so_far, r], axis=0)
        so_far = row_appends.append_rows(so_far, r)
        assert so_far.dtype == want.dtype
        np.testing.assert_array_equal(so_far, want)


def test_append_rows_of_a_dead_tail_copies():
    a = row_appends.append_rows(np.zeros((0, 1)), np.ones((1, 1)))
    key = id(a)
    assert key in row_appends._TAILS
    del a
    assert key not in row_appends._TAILS


def _appending_loop(x, steps=5):
    """A while loop whose body appends x * i to the rows so far, as dynamic_rnn's."""
    def body(i, so_far):
        row = tf.expand_dims(x * tf.cast(i, tf.float32), 0)
        return i + 1, tf.concat([so_far, row], 0)
    zeros = tf.zeros(tf.stack([0, tf.shape(x)[0]]))
    return tf.while_loop(lambda i, _: i < steps, body, [tf.constant(0), zeros],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, None])])


def test_rows_appended_in_a_while_loop_and_the_gradient_through_them():
    x = tf.placeholder(tf.float32, [None])
    _, rows = _appending_loop(x)
    loss = tf.reduce_sum(rows * rows)
    grad, = tf.gradients(loss, [x])
    xv = odd_floats((4,), seed=3)
    xv[~np.isfinite(xv)] = 1.5
    got_rows, got_grad = run([rows, grad], {x: xv})
    i = np.arange(5, dtype=np.float32)[:, None]
    same_bits(got_rows, xv[None, :] * i)
    np.testing.assert_allclose(got_grad, 2 * xv * np.float32(0 + 1 + 4 + 9 + 16), rtol=1e-6)


def test_concat_in_a_loop_reports_tensorflows_errors():
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None, None])

    def body(i, so_far):
        return i + 1, tf.concat([so_far, y], 0)
    zeros = tf.zeros(tf.stack([0, tf.shape(x)[0]]))
    _, rows = tf.while_loop(lambda i, _: i < 2, body, [tf.constant(0), zeros],
                            shape_invariants=[tf.TensorShape([]),
                                              tf.TensorShape([None, None])])
    with pytest.raises(InvalidArgumentError) as info:
        run(rows, {x: np.zeros(3), y: np.zeros((1, 4))})
    assert str(info.value).splitlines()[0] == (
        "ConcatOp : Dimensions of inputs should match: shape[0] = [0,3] vs. shape[1] = [1,4]")
    same_bits(run(rows, {x: np.zeros(2), y: np.full((2, 2), -0.0)}),
              np.full((4, 2), -0.0, np.float32))


def test_concat_outside_loops_makes_arrays_of_their_own():
    a = tf.placeholder(tf.float32, [None, 2])
    got = run(tf.concat([a, a], 0), {a: np.ones((1, 2))})
    assert got.base is None and got.shape == (2, 2)


# -- UnsortedSegmentSum of one row: NumPy instead of the copy and the Numba loop ---------------
def _general_segment_sum(data, ids, num):
    """The kernel's general path: the same row with a dropped (-1) row beside it."""
    from tfteach.kernels.cpu.index_kernels import unsorted_segment_sum
    data = np.asarray(data)
    rows = data.reshape((1,) + data.shape[np.ndim(ids):])
    two = np.concatenate([rows, np.ones_like(rows)])
    return unsorted_segment_sum(None, two, np.array([int(np.reshape(ids, -1)[0]), -1],
                                                    np.int32), num)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64,
                                   np.complex64])
def test_segment_sum_of_one_row_is_the_general_sum(dtype):
    from tfteach.kernels.cpu.index_kernels import unsorted_segment_sum
    base = (odd_floats((4, 3, 5), seed=1) if np.dtype(dtype).kind in "fc"
            else np.arange(-30, 30).reshape(4, 3, 5))
    data = base.astype(dtype)[1:2, :, ::2]                                 # strided
    for ids, num in ((np.array([2], np.int32), 3), (np.array([0], np.int64), 1),
                     (np.array([-1], np.int32), 4), (np.array([[1]], np.int32), 2)):
        d = data.reshape(ids.shape + data.shape[1:])
        got = unsorted_segment_sum(None, d, ids, np.int32(num))
        same_bits(got, _general_segment_sum(d, ids, num))
        want = np.zeros((num,) + data.shape[1:], dtype)
        if ids.reshape(-1)[0] >= 0:
            want[ids.reshape(-1)[0]] += data[0]
        same_bits(got, want)
    scalar = unsorted_segment_sum(None, data[0], np.array(1, np.int32), 2)   # ids of rank 0
    same_bits(scalar, _general_segment_sum(data[0], np.array(1, np.int32), 2))


def test_segment_sum_of_one_row_errors_are_tensorflows():
    data = tf.placeholder(tf.float32)
    ids = tf.placeholder(tf.int32)
    total = tf.unsorted_segment_sum(data, ids, 3)
    for ids_value, data_value, where in (([5], np.zeros((1, 2)), "[0]"), (7, np.zeros(2), ""),
                                         ([[3]], np.zeros((1, 1)), "[0,0]")):
        with pytest.raises(InvalidArgumentError) as info:
            run(total, {data: data_value, ids: ids_value})
        assert str(info.value).splitlines()[0] == (
            "segment_ids%s = %d is out of range [0, 3)" % (where, np.ravel(ids_value)[0]))
    with pytest.raises(InvalidArgumentError) as info:
        run(total, {data: np.zeros((2, 2)), ids: [1]})
    assert str(info.value).splitlines()[0] == (
        "data.shape = [2,2] does not start with segment_ids.shape = [1]")
    same_bits(run(total, {data: np.full((1, 2), -0.0), ids: [0]}), np.zeros((3, 2), np.float32))


# -- Transpose: the permutation checked as Python ints ---------------------------------------
@pytest.mark.parametrize("perm_dtype", [np.int32, np.int64])
def test_transpose_is_numpys_view(perm_dtype):
    from itertools import permutations
    from tfteach.kernels.cpu.array_kernels import transpose
    x = odd_floats((2, 3, 4))[:, ::-1, ::2]                       # strided
    for perm in permutations(range(3)):
        got = transpose(None, x, np.array(perm, perm_dtype))
        same_bits(got, np.transpose(x, perm))
        assert np.shares_memory(got, x)
    same_bits(transpose(None, np.float64(-0.0), np.zeros(0, perm_dtype)), np.float64(-0.0))
    same_bits(transpose(None, np.zeros((0, 2), np.int8), np.array([1, 0], perm_dtype)),
              np.zeros((2, 0), np.int8))


def test_transpose_errors_of_fed_permutations_are_tensorflows():
    x = tf.constant(np.zeros((2, 3, 4), np.float32))
    perm = tf.placeholder(tf.int32, [3])
    for bad, message in (([0, 1, 3], "3 is out of range [0 .. 3)"),
                         ([-1, 0, 1], "-1 is out of range [0 .. 3)"),
                         ([2, 2, 0], "1 is missing from {2,2,0}.")):
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.transpose(x, perm), {perm: bad})
        assert str(info.value).splitlines()[0] == message


# -- Shape / ShapeN: an array's own .shape ---------------------------------------------------
def test_shape_and_shape_n_of_arrays_and_scalars():
    class Ctx:
        attrs = {"out_type": tf.int64}
    x = np.zeros((3, 0, 2), np.float16)[:, :, ::2]
    for value, dims in ((x, [3, 0, 1]), (np.float32(2.5), []), (np.array(1), []),
                        ([[1, 2]], [1, 2])):
        same_bits(shape_kernels.shape(Ctx, value), np.array(dims, np.int64))
    got = shape_kernels.shape_n(Ctx, x, np.float32(1))
    assert isinstance(got, tuple) and len(got) == 2
    same_bits(got[0], np.array([3, 0, 1], np.int64))
    same_bits(got[1], np.zeros(0, np.int64))
    same_bits(shape_kernels.shape_n(Ctx, x), np.array([3, 0, 1], np.int64))   # one output


# -- BiasAdd / BiasAddGrad: the row loops' case tested before TF's general checks -------------
class _Format:
    def __init__(self, data_format=None):
        self.attrs = {} if data_format is None else {"data_format": data_format}
        self.op = None


def _rows_summed_in_order(g):
    """The row loop's order: rows of [..., C] added one after another into zeros."""
    rows = g.reshape(-1, g.shape[-1])
    acc = np.zeros(g.shape[-1], g.dtype)
    for r in rows:
        acc += r
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, data_format", [
    ((32, 512), None), ((32, 512), "NHWC"), ((4, 8, 8, 64), "NHWC"), ((2, 4096), None),
    ((32, 512), "NCHW")])            # rank 2: NCHW's channel axis 1 is the last one
def test_bias_add_and_its_gradient_on_the_row_loops(dtype, shape, data_format):
    from tfteach.kernels.cpu.bias_kernels import bias_add, bias_add_grad
    ctx = _Format(data_format)
    x = odd_floats(shape, dtype, seed=2)
    b = odd_floats(shape[-1:], dtype, seed=3)
    same_bits(bias_add(ctx, x, b), np.add(x, b))
    g = odd_floats(shape, dtype, seed=4)
    g[~np.isfinite(g)] = 0.5                      # sums of infs are NaN either way
    same_bits(bias_add_grad(ctx, g), _rows_summed_in_order(g))


def test_bias_add_off_the_row_loops_and_its_errors():
    from tfteach.kernels.cpu.bias_kernels import bias_add, bias_add_grad
    x = odd_floats((4, 16, 3, 3), seed=5)
    b = odd_floats((16,), seed=6)
    same_bits(bias_add(_Format("NCHW"), x, b), x + b.reshape(16, 1, 1))
    small = odd_floats((3, 8), seed=7)                 # fewer elements than the loops take
    same_bits(bias_add(_Format(), small, b[:8]), small + b[:8])
    strided = odd_floats((64, 128), seed=8)[:, ::2]
    same_bits(bias_add(_Format(), strided, b.repeat(4)), strided + b.repeat(4))
    ints = np.arange(40, dtype=np.int32).reshape(5, 8)
    same_bits(bias_add(_Format(), ints, np.arange(8, dtype=np.int32)),
              ints + np.arange(8, dtype=np.int32))
    same_bits(bias_add_grad(_Format(), ints), ints.sum(axis=0, dtype=np.int32))
    x_t = tf.placeholder(tf.float32)
    b_t = tf.placeholder(tf.float32)
    for x_value, b_value, message in (
            (np.zeros((64, 128)), np.zeros(127), "Must provide as many biases as the last "
             "dimension of the input tensor: [127] vs. [64,128]"),
            (np.zeros(128), np.zeros(128), "Input tensor must be at least 2D: [128]"),
            (np.zeros((64, 128)), np.zeros((1, 128)), "Biases must be 1D: [1,128]")):
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.nn.bias_add(x_t, b_t), {x_t: x_value, b_t: b_value})
        assert str(info.value).splitlines()[0] == message


# -- AddN of three or more: the same additions, into the first sum's array -------------------
@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_add_n_of_several_is_the_sum_in_order(n, dtype):
    import warnings
    from tfteach.ops.aggregate_ops import _sum_kernel
    wide = [odd_floats((16, 32), np.float64, seed=10 + i) for i in range(n)]
    if np.dtype(dtype).kind == "i":
        wide = [np.nan_to_num(w, posinf=2 ** 31 - 1, neginf=-2 ** 31) for w in wide]
        wide = [(w * 1e9).clip(-2 ** 31, 2 ** 31 - 1) for w in wide]   # sums overflow, wrap
    values = [w.astype(dtype)[:, ::2] if i % 2 else w.astype(dtype)[:, :16]
              for i, w in enumerate(wide)]                   # strided and contiguous
    with np.errstate(all="ignore"):
        want = values[0] + values[1]
        for v in values[2:]:
            want = want + v
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):              # as every session run has them
            got = _sum_kernel(None, *values)
    same_bits(got, want)
    assert not any(np.shares_memory(got, v) for v in values)


def test_add_n_of_several_off_the_short_path():
    from tfteach.ops.aggregate_ops import _sum_kernel
    scalars = [np.array(1.5, np.float32), np.array(-0.0, np.float32), np.array(2, np.float32)]
    got = _sum_kernel(None, *scalars)                       # 0-d: a NumPy scalar, as before
    assert type(got) is np.float32 and got == 3.5
    mixed = [np.ones(3, np.float32), np.ones(3, np.float64), np.ones(3, np.float32)]
    same_bits(_sum_kernel(None, *mixed), np.full(3, 3.0))    # the general path's promotion
    x, y, z = (tf.placeholder(tf.float32, [None]) for _ in range(3))
    with pytest.raises(InvalidArgumentError) as info:
        run(tf.add_n([x, y, z]), {x: [1, 2], y: [1, 2], z: [1, 2, 3]})
    assert str(info.value).splitlines()[0] == (
        "Inputs to operation AddN of type AddN must have the same size and shape.  "
        "Input 0: [2] != input 2: [3]")
    same_bits(run(tf.add_n([x, y, z]), {x: [-0.0], y: [-0.0], z: [-0.0]}),
              np.array([-0.0], np.float32))


def test_add_n_of_one_input_forwards_it():
    # TF's AddN allows N = 1 (add_n itself never builds one, but an imported GraphDef may
    # hold such a node); the general path read inputs[1] and raised IndexError.
    from tfteach.ops.op_builder import apply_op
    x = tf.placeholder(tf.float32, [None])
    one = apply_op("AddN", [x], {"N": 1, "T": tf.float32}, "AddN")
    assert one.shape.as_list() == [None]
    same_bits(run(one, {x: [1.5, -0.0]}), np.array([1.5, -0.0], np.float32))
