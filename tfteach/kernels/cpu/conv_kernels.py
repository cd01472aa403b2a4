"""CPU kernels of `Conv2D` and its two gradients, `Conv2DBackpropInput` / `...Filter`.

All three are one matrix product around the same patch matrix (conv_patches.py):

    forward          out    = cols @ F              cols: [N*OH*OW, KH*KW*C]
    filter gradient  dF     = cols^T @ dOut         F:    [KH*KW*C, OC]  (the filter)
    input gradient   dcols  = dOut @ F^T, then col2im adds dcols back onto the image

(dOut: the output gradient as [N*OH*OW, OC]). The products run in BLAS (`np.dot`), the
copies are Numba loops, and a large batch is split in two halves computed on two threads
(two_workers.py). docs/conv.md has the measurements behind im2col + GEMM over direct
loops and behind the batch split over BLAS's own threads.

In a training step's fused plan, a layer where it pays is computed through the Fourier
transform instead (conv_fourier.py, chosen by runtime/fusion.py).

Work is done in NHWC: an NCHW tensor is transposed on the way in and out (TF 1.15's CPU
kernels refuse NCHW; tfteach accepts it). float16 is computed in float32 and rounded back.
Runtime errors use TF 1.15's texts (conv_ops.cc, conv_grad_ops.cc).
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError, UnimplementedError
from tfteach.kernels.cpu import conv_fourier, run_state
from tfteach.kernels.cpu.conv_geometry import ConvParams
from tfteach.kernels.cpu.two_workers import over_batch
from tfteach.kernels.cpu.conv_patches import col2im, im2col, im2col_transposed
from tfteach.kernels.cpu.nn_kernels import add_bias_then_relu
from tfteach.kernels.cpu.cwise import shape_string

__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "SharedPatches",
           "conv_params", "to_nhwc", "from_nhwc", "compute_dtype", "scratch", "geometry",
           "check_filter_not_empty"]


# Their work arrays and what a fused layer's ops hand each other are the run's.
run_state.kept_by("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter")


def _error(ctx, message, cls=InvalidArgumentError):
    return cls(None, ctx.op, message)


def conv_params(ctx):
    try:
        return ConvParams.from_attrs(ctx.attrs)
    except ValueError as e:
        raise _error(ctx, str(e)) from None


def geometry(ctx, p, in_h, in_w, k_h, k_w):
    try:
        return p.output_geometry(in_h, in_w, k_h, k_w)
    except ValueError as e:
        raise _error(ctx, str(e)) from None


def to_nhwc(x, data_format):
    """`x` as a C-contiguous NHWC array (a copy only when a transpose is needed)."""
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    return np.ascontiguousarray(x)


def from_nhwc(y, data_format):
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2)) if data_format == "NCHW" else y


def compute_dtype(dtype):
    """float16 has no BLAS or Numba arithmetic: compute in float32 (TF's Eigen does too)."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def scratch(ctx, key, shape, dtype):
    """A work array of this op, reused by the next run on the same RunState.

    The patch matrices are large (31 MB for LeNet's second layer); allocating them fresh
    each step costs a page fault per 4 KB, which measured ~1-2 ms a call. Never returned
    to the caller, so reuse is safe. Kept per run in progress (run_state.py), not in the
    op's context: two threads running the same step at once each fill their own.
    """
    return run_state.scratch(ctx, key, shape, dtype)


def check_filter_not_empty(ctx, f):
    """TF 1.15 divided by zero (a crash) or computed garbage for a zero-element filter fed
    at run time; later TFs refuse it with this text."""
    if f.size == 0:
        raise _error(ctx, "filter must not have zero elements (i.e. all dimensions must "
                     "be non-zero)")


def _is_pointwise(kh, kw, p, rows, cols, h, w):
    """A 1x1 filter, stride 1, no padding: every pixel is its own window."""
    return kh == kw == 1 and p.strides == (1, 1) and (rows[0], cols[0]) == (h, w)


def _patch_fn(x, kh, kw, p, rows, cols, buffer):
    """patches(lo, hi): the im2col rows of images lo..hi-1 of the NHWC `x`.

    `buffer` holds the rows of the whole batch; each call fills its own slice, so the
    two halves of two_workers.over_batch never touch the same memory.
    """
    (oh, top, _), (ow, left, _) = rows, cols
    n, h, w, c = x.shape
    if _is_pointwise(kh, kw, p, rows, cols, h, w):
        return lambda lo, hi: x[lo:hi].reshape((hi - lo) * h * w, c)
    if c == 1:      # one channel: fill the transposed layout, return its (free) transpose
        def patches_t(lo, hi):
            cols_t = buffer[lo * oh * ow:hi * oh * ow].reshape(kh * kw, (hi - lo) * oh * ow)
            return im2col_transposed(x[lo:hi], kh, kw, p.strides[0], p.strides[1],
                                     p.dilations[0], p.dilations[1], top, left, oh, ow,
                                     cols_t).T
        return patches_t

    def patches(lo, hi):
        return im2col(x[lo:hi], kh, kw, p.strides[0], p.strides[1], p.dilations[0],
                      p.dilations[1], top, left, oh, ow, buffer[lo * oh * ow:hi * oh * ow])
    return patches


class SharedPatches:
    """The patch matrix a Conv2D built, handed to its filter gradient in the same step.

    `Conv2DBackpropFilter` multiplies the same patches of the same input (cols^T @ dOut)
    as the forward (cols @ F). When the plan pairs the two (runtime/fusion.py), the
    forward records the views it filled, per half of the batch, and the filter gradient
    takes them instead of running im2col again into a patch matrix of its own: a 31 MB
    copy less per step and per session for LeNet's second layer. `key` says what the
    patches are of (input shape, filter size, geometry, dtype); the gradient uses them
    only when its own key is the same, else it builds its own as usual.
    """

    __slots__ = ("key", "views")

    def __init__(self):
        self.clear()

    def fresh(self):
        """An empty one: each run in progress has its own (run_state.own)."""
        return SharedPatches()

    def clear(self):
        """Nothing recorded (a forward starting its step, or a gradient done with them)."""
        self.key, self.views = None, {}

    def record(self, key, patches):
        """patches(lo, hi), remembering each view it returns under `key`."""
        self.key, self.views = key, {}

        def recorded(lo, hi):
            view = self.views[(lo, hi)] = patches(lo, hi)
            return view
        return recorded

    def reuse(self, key, make_patches):
        """patches(lo, hi) from the recorded views where they match, else from
        make_patches() (called once, when first needed); the views are released."""
        views = self.views if key == self.key else {}
        self.clear()
        own = []

        def patches(lo, hi):
            view = views.get((lo, hi))
            if view is None:
                if not own:
                    own.append(make_patches())
                view = own[0](lo, hi)
            return view
        return patches


def _patch_key(x, kh, kw, p, rows, cols):
    return (x.shape, x.dtype, kh, kw, rows, cols, p.strides, p.dilations)


def _check_4d(ctx, value, what, label=None):
    if np.ndim(value) != 4:
        if label is None:   # Conv2D's own texts
            sep = "" if what == "input" else ": "
            raise _error(ctx, "%s must be 4-dimensional%s%s" % (what, sep, shape_string(value)))
        raise _error(ctx, "%s: %s must be 4-dimensional" % (label, what))


# -- Conv2D ------------------------------------------------------------------------------------
def conv2d(ctx, x, f, shared=None, spectra=None, bias_relu=None):
    """`shared` / `spectra`: what a fused training plan pairs with the layer's gradients
    (runtime/fusion.py): the patch matrix, or the Fourier transforms where they pay.
    `bias_relu`: a bias vector; the output is then relu(conv + bias), the bias add and
    Relu a fused plan found after the layer (it checked: 1-D, the output's float dtype
    and channel count, NHWC)."""
    shared, spectra = run_state.own(shared), run_state.own(spectra)
    if shared is not None:          # nothing recorded yet in this step
        shared.clear()
    if spectra is not None:
        spectra.clear()
    p = conv_params(ctx)
    _check_4d(ctx, x, "input")
    _check_4d(ctx, f, "filter")
    nhwc = to_nhwc(x, p.data_format)
    n, h, w, c = nhwc.shape
    kh, kw, fc, oc = f.shape
    check_filter_not_empty(ctx, f)
    if c % fc != 0:
        raise _error(ctx, "input depth must be evenly divisible by filter depth: %d vs %d"
                     % (c, fc))
    groups = c // fc
    if oc % groups != 0 or oc < groups:       # TF checks this before it looks at groups
        raise _error(ctx, "output depth must be evenly divisible by number of groups: "
                     "%d vs %d" % (oc, groups))
    if c != fc:
        raise _error(ctx, "Generic conv implementation does not support grouped "
                     "convolutions for now.", UnimplementedError)
    rows, cols = geometry(ctx, p, h, w, kh, kw)
    dtype = compute_dtype(x.dtype)
    (oh, _, _), (ow, _, _) = rows, cols
    if spectra is not None and conv_fourier.pays(p, n, h, w, c, kh, kw, oc, rows, cols):
        out = conv_fourier.forward(nhwc.astype(dtype, copy=False), np.asarray(f, dtype),
                                   rows, cols, spectra, bias_relu)
        if out is not None:
            return from_nhwc(out.astype(x.dtype, copy=False), p.data_format)
        # else an inf or a NaN, which the transforms spread: computed again below
    # Every row is written by a product below; only zero input channels leave zeros.
    out = (np.empty if c else np.zeros)((n, oh, ow, oc), dtype)
    out2 = out.reshape(n * oh * ow, oc)
    if out.size and c:
        nhwc = nhwc.astype(dtype, copy=False)
        buffer = scratch(ctx, "cols", (n * oh * ow, kh * kw * c), dtype)
        patches = _patch_fn(nhwc, kh, kw, p, rows, cols, buffer)
        if shared is not None:      # the filter gradient of this step will read them
            patches = shared.record(_patch_key(nhwc, kh, kw, p, rows, cols), patches)
        f2 = np.ascontiguousarray(f, dtype).reshape(kh * kw * c, oc)

        def half(lo, hi):       # out rows of images lo..hi-1 = their patches @ filter
            rows_of_half = out2[lo * oh * ow:hi * oh * ow]
            np.dot(patches(lo, hi), f2, out=rows_of_half)
            if bias_relu is not None:       # while the rows are in this core's cache
                add_bias_then_relu(rows_of_half, bias_relu)
        over_batch(half, n, out2.size * f2.shape[0])
    elif bias_relu is not None and out.size:
        add_bias_then_relu(out2, bias_relu)
    return from_nhwc(out.astype(x.dtype, copy=False), p.data_format)


# -- the backprop ops: shared checks (TF's ConvBackpropComputeDimensionsV2) ---------------------
def _sizes(ctx, label, sizes):
    sizes = np.asarray(sizes)
    if sizes.ndim != 1:
        raise _error(ctx, "%s: %s input must be 1-dim, not %d"
                     % (label, "input_sizes" if label.endswith("Input") else "filter_sizes",
                        sizes.ndim))
    if np.any(sizes < 0):
        raise _error(ctx, "Dimension %d must be >= 0" % int(sizes[np.argmax(sizes < 0)]))
    return tuple(int(s) for s in sizes)


def _backprop_dims(ctx, label, p, input_shape, filter_shape, dy):
    """Checks the three shapes against each other; returns NHWC dims and the geometry."""
    for what, shape in (("input", input_shape), ("filter", filter_shape),
                        ("out_backprop", dy.shape)):
        if len(shape) != 4:
            raise _error(ctx, "%s: %s must be 4-dimensional" % (label, what))
    n_ax, h_ax, w_ax, c_ax = (0, 2, 3, 1) if p.data_format == "NCHW" else (0, 1, 2, 3)
    if input_shape[n_ax] != dy.shape[n_ax]:
        raise _error(ctx, "%s: input and out_backprop must have the same batch size" % label)
    if input_shape[c_ax] != filter_shape[2]:
        raise _error(ctx, "%s: input and filter must have the same depth" % label)
    if filter_shape[3] != dy.shape[c_ax]:
        raise _error(ctx, "%s: filter and out_backprop must have the same out_depth" % label)
    geo = geometry(ctx, p, input_shape[h_ax], input_shape[w_ax], filter_shape[0],
                   filter_shape[1])
    for k, ax in enumerate((h_ax, w_ax)):
        computed, actual = geo[k][0], dy.shape[ax]
        if computed != actual:
            raise _error(ctx, "%s: Size of out_backprop doesn't match computed: actual = %d, "
                         "computed = %d spatial_dim: %d input: %d filter: %d output: %d "
                         "stride: %d dilation: %d"
                         % (label, actual, computed, ax, input_shape[ax], filter_shape[k],
                            actual, p.strides[k], p.dilations[k]))
    nhwc_input = tuple(input_shape[a] for a in (n_ax, h_ax, w_ax, c_ax))
    return nhwc_input, geo


def conv2d_backprop_input(ctx, input_sizes, f, dy, spectra=None):
    """d loss / d input: dcols = dOut @ F^T, then col2im (also tf.nn.conv2d_transpose)."""
    label = "Conv2DBackpropInput"
    spectra = run_state.own(spectra)
    p = conv_params(ctx)
    input_shape = _sizes(ctx, label, input_sizes)
    # TF's CPU kernel is Conv2DCustomBackpropInputOp: its shape checks carry that label
    (n, h, w, c), (rows, cols) = _backprop_dims(ctx, "Conv2DCustomBackpropInput", p,
                                                input_shape, f.shape, dy)
    kh, kw, _, oc = f.shape
    dtype = compute_dtype(dy.dtype)
    if f.size == 0 or dy.size == 0:     # nothing flows back (reshape(-1, 0) would fail)
        return from_nhwc(np.zeros((n, h, w, c), dy.dtype), p.data_format)
    if spectra is not None and conv_fourier.pays(p, n, h, w, c, kh, kw, oc, rows, cols):
        dx = conv_fourier.backprop_input(
            to_nhwc(dy, p.data_format).astype(dtype, copy=False),
            np.asarray(f, dtype), (n, h, w, c), rows, cols, spectra)
        if dx is not None:
            return from_nhwc(dx.astype(dy.dtype, copy=False), p.data_format)
        # else an inf or a NaN, which the transforms spread: computed again below
    g = to_nhwc(dy, p.data_format).astype(dtype, copy=False).reshape(-1, oc)
    f2 = np.ascontiguousarray(f, dtype).reshape(kh * kw * c, oc)
    (oh, top, _), (ow, left, _) = rows, cols
    if _is_pointwise(kh, kw, p, rows, cols, h, w):
        return from_nhwc(np.dot(g, f2.T).reshape(n, h, w, c).astype(dy.dtype, copy=False),
                         p.data_format)        # a 1x1 filter: no window to undo
    dx = np.zeros((n, h, w, c), dtype)
    buffer = scratch(ctx, "dcols", (g.shape[0], f2.shape[0]), dtype)

    def half(lo, hi):           # images lo..hi-1: their dcols, added back onto dx
        r0, r1 = lo * oh * ow, hi * oh * ow
        dcols = np.dot(g[r0:r1], f2.T, out=buffer[r0:r1])
        col2im(dcols, kh, kw, p.strides[0], p.strides[1], p.dilations[0], p.dilations[1],
               top, left, oh, ow, dx[lo:hi])
    if g.size and dx.size:
        over_batch(half, n, g.shape[0] * f2.size)
    return from_nhwc(dx.astype(dy.dtype, copy=False), p.data_format)


def conv2d_backprop_filter(ctx, x, filter_sizes, dy, shared=None, spectra=None):
    """d loss / d filter: cols^T @ dOut, reshaped to [KH, KW, C, OC]."""
    label = "Conv2DBackpropFilter"
    shared, spectra = run_state.own(shared), run_state.own(spectra)
    p = conv_params(ctx)
    filter_shape = _sizes(ctx, label, filter_sizes)
    if x.ndim != 4:
        raise _error(ctx, "%s: input must be 4-dimensional" % label)
    _, (rows, cols) = _backprop_dims(ctx, "Conv2DCustomBackpropFilter", p, x.shape,
                                     filter_shape, dy)
    kh, kw, c, oc = filter_shape
    dtype = compute_dtype(dy.dtype)
    if x.size == 0 or dy.size == 0 or 0 in filter_shape:    # an all-zero (or empty) dF
        return np.zeros(filter_shape, dy.dtype)
    x = to_nhwc(x, p.data_format).astype(dtype, copy=False)
    if spectra is not None and conv_fourier.pays(p, *x.shape, kh, kw, oc, rows, cols):
        df = conv_fourier.backprop_filter(
            x, to_nhwc(dy, p.data_format).astype(dtype, copy=False),
            filter_shape, rows, cols, spectra)
        if df is not None:
            if shared is not None:  # patches of a forward that fell back: not needed
                shared.clear()
            return df.astype(dy.dtype, copy=False)
        # else an inf or a NaN, which the transforms spread: computed again below
    g = to_nhwc(dy, p.data_format).astype(dtype, copy=False).reshape(-1, oc)
    (oh, _, _), (ow, _, _) = rows, cols

    def own_patches():
        buffer = scratch(ctx, "cols", (x.shape[0] * oh * ow, kh * kw * c), dtype)
        return _patch_fn(x, kh, kw, p, rows, cols, buffer)
    if shared is None:
        patches = own_patches()
    else:                           # the forward's, when it built the same ones
        patches = shared.reuse(_patch_key(x, kh, kw, p, rows, cols), own_patches)

    def half(lo, hi):           # this half's contribution: its patches^T @ its dOut rows
        return np.dot(patches(lo, hi).T, g[lo * oh * ow:hi * oh * ow])
    parts = over_batch(half, x.shape[0], g.shape[0] * kh * kw * c * oc)
    df = (parts[0] if len(parts) == 1 else parts[0] + parts[1]).reshape(kh, kw, c, oc)
    return df.astype(dy.dtype, copy=False)
