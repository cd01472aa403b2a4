"""tf.slice, tf.strided_slice and tensor[...] against NumPy's basic indexing."""
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tfteach as tf
from tfteach.errors import InvalidArgumentError

M = np.arange(12, dtype=np.float32).reshape(3, 4)
A = np.arange(60, dtype=np.int32).reshape(3, 4, 5)


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# -- hypothesis: x[index] equals NumPy's x[index] --------------------------------------------
def _bound():
    return st.one_of(st.none(), st.integers(-7, 7))


_slices = st.builds(slice, _bound(), _bound(),
                    st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0)))


@st.composite
def shapes_and_indices(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    items = []
    used = 0                                   # input dims consumed so far
    has_ellipsis = False
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["int", "slice", "newaxis", "ellipsis"]))
        if kind == "ellipsis" and not has_ellipsis:
            items.append(Ellipsis)
            has_ellipsis = True
        elif kind == "newaxis":
            items.append(None)
        elif used < len(shape) and kind == "int" and shape[used] > 0:
            items.append(draw(st.integers(-shape[used], shape[used] - 1)))
            used += 1
        elif used < len(shape):
            items.append(draw(_slices))
            used += 1
    single = len(items) == 1 and draw(st.booleans())
    return shape, (items[0] if single else tuple(items))


@settings(max_examples=150, deadline=None)
@given(shapes_and_indices())
def test_getitem_matches_numpy(case):
    shape, index = case
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    try:
        want = x[index]
    except IndexError:
        assume(False)          # (after `...` an int may land on an empty dimension)
    with tf.Graph().as_default():
        t = tf.constant(x)[index]
        assert t.shape.as_list() == list(want.shape)         # known statically
        p = tf.placeholder(tf.int64)                          # and with an unknown shape
        u = p[index]
        with tf.Session() as sess:
            got, got_unknown = sess.run([t, u], {p: x})
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_unknown, want)
    assert np.shape(got) == want.shape and np.shape(got_unknown) == want.shape


# -- __getitem__ forms ---------------------------------------------------------------------------
def test_getitem_forms():
    t = tf.constant(A)
    cases = [(t[1], A[1]), (t[-1, ::-2], A[-1, ::-2]), (t[..., 1:3], A[..., 1:3]),
             (t[:, tf.newaxis, 0], A[:, None, 0]), (t[1, 2, 3], A[1, 2, 3]),
             (t[::-1, 5:-7:-1], A[::-1, 5:-7:-1]), (t[:0], A[:0]), (t[()], A),
             (t[np.int64(2)], A[2]), (t[:, :t.shape[1]], A)]
    for tensor, want in cases:
        got = run(tensor)
        np.testing.assert_array_equal(got, want)
        assert tensor.shape.as_list() == list(want.shape)


def test_getitem_with_tensor_indices():
    t = tf.constant(A)
    i = tf.placeholder(tf.int32, [])
    row = t[i]
    assert row.shape.as_list() == [4, 5]
    np.testing.assert_array_equal(run(row, {i: 2}), A[2])
    tail = t[:, i:]
    assert tail.shape.as_list() == [3, None, 5]
    np.testing.assert_array_equal(run(tail, {i: 1}), A[:, 1:])
    j = tf.constant(1, tf.int64)
    np.testing.assert_array_equal(run(t[j:, 0]), A[1:, 0])
    assert t[j:, 0].op.inputs[1].dtype == tf.int64


def test_constant_tensor_index_gives_static_shapes_and_build_time_errors():
    """x[t] builds end = t + 1, not a constant; a shrink axis needs only its begin, so a
    constant t still gives the static shape, and one out of range fails at build (TF's
    shape inference folds t + 1)."""
    x = tf.placeholder(tf.float64, [2, 4])
    assert x[tf.constant(1), 1:3].shape.as_list() == [2]
    assert x[tf.constant(-2), ..., :-2:3].shape.as_list() == [1]
    assert x[tf.placeholder(tf.int32, []), 1:3].shape.as_list() == [None]
    with pytest.raises(ValueError, match=r"^slice index 5 of dimension 0 out of bounds\. "
                                         r"for 'strided_slice_\d+' \(op: 'StridedSlice'\)"):
        x[tf.constant(5)]
    np.testing.assert_array_equal(
        run(x[tf.constant(1), 1:3], {x: np.arange(8.0).reshape(2, 4)}), [5.0, 6.0])


def test_getitem_node_names_and_masks():
    t = tf.constant(M)
    s = t[1:, ..., None, -1]
    assert s.op.type == "StridedSlice" and s.op.name == "strided_slice"
    attrs = {k: s.op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                            "new_axis_mask", "shrink_axis_mask")}
    assert attrs == {"begin_mask": 0, "end_mask": 1, "ellipsis_mask": 2, "new_axis_mask": 4,
                     "shrink_axis_mask": 8}
    assert s.op.inputs[1].op.name == "strided_slice/stack"


def test_getitem_strings_bools_and_partial_shapes():
    assert run(tf.constant(["a", "b", "c"])[::-1]).tolist() == [b"c", b"b", b"a"]
    flag = run(tf.constant([[True, False]])[0, 1])
    assert flag.dtype == np.bool_ and not flag
    p = tf.placeholder(tf.float32, [None, 3, None])
    assert p[1:].shape.as_list() == [None, 3, None]
    assert p[:, 0].shape.as_list() == [None, None]
    assert p[..., ::2].shape.as_list() == [None, 3, None]
    assert p[:, 1:].shape.as_list() == [None, 2, None]
    assert tf.placeholder(tf.float32)[0].shape.ndims is None


def test_getitem_errors():
    t = tf.constant(M)
    with pytest.raises(ValueError, match=r"^slice index 3 of dimension 0 out of bounds. for "
                                         r"'strided_slice' \(op: 'StridedSlice'\) with input "
                                         r"shapes: \[3,4\], \[1\], \[1\], \[1\] and with computed "
                                         r"input tensors: input\[1\] = <3>, input\[2\] = <4>, "
                                         r"input\[3\] = <1>.$"):
        t[3]
    with pytest.raises(ValueError, match="slice index -1 of dimension 1 out of bounds."):
        t[:, -5]
    with pytest.raises(ValueError, match="strides\\[0\\] must be non-zero"):
        t[::0]
    with pytest.raises(ValueError, match="Multiple ellipses in slice spec not allowed"):
        t[..., ...]
    with pytest.raises(ValueError, match="Index out of range using input dim 2; input has only "
                                         "2 dims"):
        t[1, 2, 3]
    with pytest.raises(TypeError, match=r"Only integers, slices \(`:`\), ellipsis \(`...`\), "
                                        r"tf.newaxis \(`None`\) and scalar tf.int32/tf.int64 "
                                        r"tensors are valid indices, got 1.5"):
        t[1.5]
    with pytest.raises(TypeError, match="valid indices"):
        t[tf.constant([0, 1])]
    p = tf.placeholder(tf.float32)
    for index, message in [(4, "slice index 4 of dimension 0 out of bounds."),
                           (-9, "slice index -6 of dimension 0 out of bounds.")]:
        with pytest.raises(InvalidArgumentError) as info:
            run(p[index], {p: M})
        assert str(info.value).splitlines()[0] == message


# -- strided_slice with explicit masks --------------------------------------------------------
def test_strided_slice_masks():
    x = tf.constant(A)
    cases = [
        (tf.strided_slice(x, [0, 1], [2, 3]), A[0:2, 1:3]),
        (tf.strided_slice(x, [0, 1], [2, 3], [1, 1]), A[0:2, 1:3]),
        (tf.strided_slice(x, [1, 0], [0, 2], begin_mask=0, end_mask=1), A[1:, 0:2]),
        (tf.strided_slice(x, [0, 2], [0, 4], ellipsis_mask=1), A[..., 2:4]),
        (tf.strided_slice(x, [0, 1], [0, 2], new_axis_mask=1), A[None, 1:2]),
        (tf.strided_slice(x, [1, -1], [2, 0], shrink_axis_mask=3), A[1, -1]),
        (tf.strided_slice(x, [-1], [0], [-1], end_mask=1), A[::-1]),
    ]
    for tensor, want in cases:
        np.testing.assert_array_equal(run(tensor), want)
        assert tensor.shape.as_list() == list(want.shape)


def test_strided_slice_unknown_begin_keeps_rank():
    b = tf.placeholder(tf.int32, [2])
    s = tf.strided_slice(tf.constant(A), b, [3, 4], [1, 1])
    assert s.shape.as_list() == [None, None, 5]
    np.testing.assert_array_equal(run(s, {b: [1, 2]}), A[1:3, 2:4])
    s2 = tf.strided_slice(tf.constant(A), b, [3, 4], [1, 1], shrink_axis_mask=1)
    assert s2.shape.as_list() == [None, 5]


def test_strided_slice_runtime_shape_checks():
    b = tf.placeholder(tf.int32)
    with pytest.raises(InvalidArgumentError) as info:
        run(tf.strided_slice(tf.constant(M), b, [1], [1]), {b: [0, 0]})
    assert str(info.value).splitlines()[0] == (
        "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], "
        "and [1] instead.")


# -- tf.slice ----------------------------------------------------------------------------------
@pytest.mark.parametrize("begin,size", [([0, 0, 0], [3, 4, 5]), ([1, 0, 2], [1, -1, 2]),
                                        ([2, 3, 4], [1, 1, 1]), ([0, 0, 0], [0, 4, 5])])
def test_slice(begin, size):
    want = A[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
    t = tf.slice(A, begin, size)
    np.testing.assert_array_equal(run(t), want)
    assert t.shape.as_list() == list(want.shape)


def test_slice_shapes_and_errors():
    b = tf.placeholder(tf.int32, [2])
    assert tf.slice(M, b, [1, -1]).shape.as_list() == [1, None]
    assert tf.slice(M, b, tf.placeholder(tf.int32, [2])).shape.as_list() == [None, None]
    with pytest.raises(ValueError, match="Invalid value in tensor used for shape: -2"):
        tf.slice(M, [0, 0], [1, -2])
    with pytest.raises(ValueError, match=r"Negative dimension size caused by subtracting 5 from "
                                         r"4 for 'Slice_\d' \(op: 'Slice'\) with input shapes: "
                                         r"\[3,4\], \[2\], \[2\] and with input tensors computed "
                                         r"as partial shapes: input\[1\] = \[0,5\],input\[2\] = "
                                         r"\[1,\?\]."):
        tf.slice(M, [0, 5], [1, -1])
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
        tf.slice(A, [0, 0], [1, 1])
    for begin, size, message in [
            ([0, 1], [4, 1], "Expected size[0] in [0, 3], but got 4"),
            ([4, 0], [1, 1], "Expected begin[0] in [0, 3], but got 4"),
            ([0], [1], "Expected begin and size arguments to be 1-D tensors of size 2, but got "
                       "shapes [1] and [1] instead.")]:
        bt, st_ = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.slice(M, bt, st_), {bt: begin, st_: size})
        assert str(info.value).splitlines()[0] == message


def test_slice_kernel_in_range_path_matches_numpy_and_errors():
    # In-range bounds take a shorter path (slice_kernels.slice_kernel); out-of-range
    # ones the checking path, with TF's messages. Every begin/size of a 3x4x5 array,
    # int32 and int64, against NumPy's own slicing.
    from tfteach.kernels.cpu.slice_kernels import slice_kernel
    rng = np.random.RandomState(0)
    for _ in range(300):
        begin = [int(rng.randint(0, d + 1)) for d in A.shape]
        size = [-1 if rng.rand() < 0.3 else int(rng.randint(0, d - b + 1))
                for b, d in zip(begin, A.shape)]
        dtype = np.int32 if rng.rand() < 0.5 else np.int64
        got = slice_kernel(None, A, np.array(begin, dtype), np.array(size, dtype))
        want = A[tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))]
        assert got.shape == want.shape and np.array_equal(got, want)
    empty = np.zeros((0, 4), np.float32)
    assert slice_kernel(None, empty, np.array([0, 1]), np.array([0, 2])).shape == (0, 2)
    for tensor, begin, size, message in [
            (M, [-1, 0], [1, 1], "Expected begin[0] in [0, 3], but got -1"),
            (M, [1, 2], [1, 3], "Expected size[1] in [0, 2], but got 3"),
            (np.zeros((0, 4), np.float32), [1, 0], [0, 1],
             "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) when "
             "input.dim_size(0) == 0")]:
        bt, st_ = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
        with pytest.raises(InvalidArgumentError) as info:
            run(tf.slice(tensor, bt, st_), {bt: begin, st_: size})
        assert str(info.value).splitlines()[0] == message


# -- the resolved slice is kept per distinct slice (slice_spec.resolved_index) ----------------
def test_one_strided_slice_fed_new_shapes_and_bounds_run_after_run():
    # The kernel keeps each resolved (shape, begin, end, strides): a run with another
    # shape or other bounds must not get an earlier run's index, and a slice out of
    # range raises TF's error every time, also between good runs.
    x = tf.placeholder(tf.float32, [None, None])
    b, e = tf.placeholder(tf.int32, [2]), tf.placeholder(tf.int32, [2])
    y = tf.strided_slice(x, b, e, [1, 1], shrink_axis_mask=1)
    grad = tf.gradients(tf.reduce_sum(y * y), x)[0]
    rng = np.random.RandomState(5)
    with tf.Session() as sess:
        for _ in range(3):
            for rows, cols, row, lo, hi in [(3, 4, 1, 0, 4), (5, 2, -1, 1, 2), (3, 4, 2, 1, 3),
                                            (3, 4, -1, 1, 2), (5, 2, 0, -1, 2)]:
                xv = rng.rand(rows, cols).astype(np.float32)
                got, got_grad = sess.run([y, grad], {x: xv, b: [row, lo], e: [0, hi]})
                want = xv[row, lo:hi]
                want_grad = np.zeros_like(xv)
                want_grad[row, lo:hi] = 2 * want
                assert np.array_equal(got, want)
                assert np.array_equal(got_grad, want_grad)
            with pytest.raises(InvalidArgumentError) as info:
                sess.run(y, {x: np.zeros((3, 4), np.float32), b: [3, 0], e: [0, 4]})
            assert str(info.value).splitlines()[0] == (
                "slice index 3 of dimension 0 out of bounds.")


def test_strided_slices_of_many_shapes_in_threads_at_once():
    from thread_helpers import run_in_threads
    x = tf.placeholder(tf.float32, None)
    y = x[1:, ::-2]
    sess = tf.Session()

    def slice_shapes(k):
        for n in range(2, 40):
            xv = np.arange(n * (k + 3), dtype=np.float32).reshape(n, k + 3)
            assert np.array_equal(sess.run(y, {x: xv}), xv[1:, ::-2])
    run_in_threads(slice_shapes, 6)
    sess.close()
