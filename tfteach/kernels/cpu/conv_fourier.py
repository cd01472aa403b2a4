"""A convolution layer's three products through the Fourier transform, for training steps.

The convolution theorem: a circular convolution of two signals is the product of their
discrete Fourier transforms. For a stride-1 layer, each of the three ops of a training
step becomes, per frequency bin k, one small complex matrix product over channels:

    forward          Y^[k]  = X^[k] @ conj(F^[k])       [N, C] @ [C, OC]
    input gradient   dX^[k] = dY^[k] @ F^[k]^T          [N, OC] @ [OC, C]
    filter gradient  dF^[k] = X^[k]^T @ conj(dY^[k])    [C, N] @ [N, OC]

(X^ the transform of each input image and channel, F^ of each filter slice, dY^ of the
output gradient; conj because a convolution layer correlates). For LeNet's second layer
(14x14 images, 5x5 filters, 32 -> 64 channels) the 144 bins of a 16x16 transform make
these products 8x fewer multiply-adds than im2col's, and the filter gradient reuses both
transforms its neighbours made: X^ from the forward, dY^ from the input gradient
(`Spectra`). docs/conv.md has the figures.

Sizes. Think of every image in a zero buffer of Ph x Pw, its top/left padding in front;
the output gradient and the filter at the buffer's corner. A circular product wraps
around the buffer; with Ph >= max(top + H, H + bottom, KH, OH) no wrapped term lands on a
value we read (the same for columns), so the circular results are the layer's exact ones.

The transforms are dense DFT matrices applied one axis at a time, as complex matrix
products (BLAS): with the images and channels as the long contiguous axis, that measured
2-3x faster than SciPy's FFT of the same 16x16 buffers, whose 1-D lines stride across
the whole array. No buffer is built: the padding offset is part of the matrices, and
the way back computes only the rows and columns wanted. A batch is cut in two halves,
each transformed, multiplied and transformed back on its own worker (two_workers.py).

Rounding. The results agree with im2col's to float rounding, but not bit for bit, and a
value that is exactly 0 or an integer there may come out 1e-7 off here (as with the FFT
and Winograd algorithms cuDNN picks for TF on a GPU). So only the fused plans of training
steps use it (runtime/fusion.py), and only where `pays` says it is the faster way: a
student's `sess.run(conv)` keeps im2col's exact sums. A result with an inf or a NaN is
computed again with im2col (the way back checks every value it makes, before the relu
of a fused layer could hide an inf).
"""
import functools

import numpy as np
from numba import njit

from tfteach.kernels.cpu.nn_kernels import relu_scalar
from tfteach.kernels.cpu.two_workers import over_batch

__all__ = ["fourier_size", "pays", "Spectra", "forward", "backprop_input", "backprop_filter"]

# The cost model of `pays`, in multiply-adds of im2col's product (what it does at BLAS
# speed), fitted to trios of ops timed both ways on 2 cores (docs/conv.md): a transform
# costs ~50 per pixel of each image channel; a multiply-add of the per-bin complex
# products (4 real ones each) ~0.8; what is done once per bin and pair of channels
# (the filter's transform, the halves' sum) ~400, being a few passes over big arrays.
TRANSFORM_COST_PER_PIXEL = 50
PRODUCT_COST = 0.8
FILTER_COST_PER_BIN = 400
# Use the transforms only when they promise this much less work than im2col.
REQUIRED_GAIN = 1.15


def fourier_size(size, before, after, out_size, kernel):
    """The buffer length along one dimension: no wrapped term reaches a value we read.

    The forward reads buffer positions i + a (i < out_size, a < kernel) of an image that
    fills [before, before + size): a wrapped position must be padding both ways, so the
    buffer holds the image after its padding (before + size) and the padding after it
    (size + after); it holds the filter and the output too. Not rounded up to a
    power of two: a dense DFT matrix costs the same for any length, and a shorter one
    has fewer bins.
    """
    return max(before + size, size + after, kernel, out_size)


def pays(p, n, h, w, c, kh, kw, oc, rows, cols):
    """True when this layer's products are cheaper through the Fourier transform.

    Only stride 1 without dilation (a strided or dilated layer would transform pixels it
    never uses), and only when the estimated work (the model above) is REQUIRED_GAIN
    times smaller than im2col's product.
    """
    if p.strides != (1, 1) or p.dilations != (1, 1) or 0 in (n, h, w, c, oc):
        return False
    (oh, top, bottom), (ow, left, right) = rows, cols
    if oh <= 0 or ow <= 0:
        return False
    ph = fourier_size(h, top, bottom, oh, kh)
    pw = fourier_size(w, left, right, ow, kw)
    bins = ph * (pw // 2 + 1)
    im2col = n * oh * ow * kh * kw * c * oc
    fourier = (TRANSFORM_COST_PER_PIXEL * n * (c + oc) * ph * pw
               + PRODUCT_COST * 4 * bins * n * c * oc + FILTER_COST_PER_BIN * bins * c * oc)
    return fourier * REQUIRED_GAIN < im2col


def all_finite(result):
    """False when `result` holds an inf or a NaN, or its float sum overflows.

    A non-finite input value reaches every frequency of its image's transform, so in the
    Fourier domain it spreads over the whole image (and a sum of huge values may
    overflow where im2col's would not): the op is then computed again with im2col,
    whose inf and NaN land exactly where TF's do."""
    return bool(np.isfinite(np.sum(result)))


class Spectra:
    """Transforms made by one op of a layer's step, for another op of the same step.

    The forward `clear`s at the start of each step and leaves X^ of each half of the
    batch; the filter gradient takes them. When the plan pairs the layer's input
    gradient too (`with_input_gradient`), the forward also leaves F^ for it (the filter
    slot is the same, and GradientDescent's update of the filter waits for both
    gradients), and the input gradient and the filter gradient, which read the same
    output gradient, share dY^: the first of them to run leaves it for the second.
    Entries are keyed by what they are of (shape, dtype, sizes, offsets) and by the half
    (lo, hi); a taker whose key differs makes its own.
    """

    __slots__ = ("entries", "with_input_gradient")

    def __init__(self, with_input_gradient=True):
        self.entries = {}
        self.with_input_gradient = with_input_gradient

    def fresh(self):
        """An empty one of the same kind: each run in progress has its own
        (run_state.own; the fused plan's object is only its name)."""
        return Spectra(self.with_input_gradient)

    def clear(self):
        self.entries = {}

    def put(self, key, value):
        self.entries[key] = value

    def take(self, key):
        """The entry made under `key` (removed), or None."""
        return self.entries.pop(key, None)


# -- the DFT matrices ------------------------------------------------------------------------
class _Axis:
    """One spatial axis of the transform: `length` samples, `bins` frequencies kept
    (all of them, or for the last axis the half rfft keeps: the rest mirror them)."""

    def __init__(self, length, half):
        self.length = length
        self.half = half
        self.bins = length // 2 + 1 if half else length

    def forward(self, offset, size):
        """[bins, size]: the transform of `size` samples starting at buffer[offset]."""
        k = np.arange(self.bins)[:, None]
        return np.exp(-2j * np.pi * k * (np.arange(size) + offset) / self.length)

    def back(self, offset, size):
        """[size, bins]: buffer[offset:offset + size] from the bins, scaled by 1/length.
        On a half axis each bin 0 < k < length/2 counts twice (for its mirror image);
        the real part of the result is the answer."""
        k = np.arange(self.bins)[None, :]
        weight = 1.0
        if self.half:
            weight = np.where((k == 0) | (2 * k == self.length), 1.0, 2.0)
        phase = 2j * np.pi * k * (np.arange(size)[:, None] + offset) / self.length
        return weight * np.exp(phase) / self.length


@functools.lru_cache(maxsize=64)
def _matrices(ph, pw, placement, dtype, conjugate=False):
    """(rows, cols) DFT matrices as contiguous complex arrays of `dtype`'s precision.

    `placement`: ("forward" or "back", row offset, rows, column offset, columns).
    `conjugate`: their complex conjugates. A transform with them is the conjugate of the
    transform (the signals are real), and the way back with them takes the conjugate
    of a spectrum back for free: how the forward and the filter gradient avoid
    conjugating big arrays (see `forward`)."""
    direction, top, h, left, w = placement
    rows, cols = _Axis(ph, half=False), _Axis(pw, half=True)
    complex_dtype = np.result_type(dtype, np.complex64)

    def make(m):
        return np.ascontiguousarray(np.conj(m) if conjugate else m, complex_dtype)
    if direction == "forward":
        return make(rows.forward(top, h)), make(cols.forward(left, w))
    return make(rows.back(top, h)), make(cols.back(left, w))


# -- transforms of a batch of images ---------------------------------------------------------
@njit(cache=True, nogil=True)
def _columns_forward(images, fr, fi, out):
    """out[i, q, b, ch] = sum over j of (fr + i fi)[q, j] * images[b, i, j, ch].

    The first half of a transform: along each image row, from the real NHWC images
    straight into the layout the second half reads. A loop, not BLAS: the sum is only
    W long (14 for LeNet), where a complex GEMM ran at a fifth of its speed, and the
    loop also does the transposition and the real-to-complex copy it would need."""
    n, h, w, c = images.shape
    bins = fr.shape[0]
    re = np.empty(c, images.dtype)
    im = np.empty(c, images.dtype)
    for i in range(h):
        for b in range(n):
            for q in range(bins):
                re[:] = 0
                im[:] = 0
                for j in range(w):
                    a, e = fr[q, j], fi[q, j]
                    for ch in range(c):          # channels: contiguous, vectorised
                        re[ch] += a * images[b, i, j, ch]
                        im[ch] += e * images[b, i, j, ch]
                for ch in range(c):
                    out[i, q, b, ch] = re[ch] + 1j * im[ch]
    return out


@njit(cache=True, nogil=True)
def _columns_back(z, br, bi, out, bias, relu):
    """out[b, i, j, ch] = Re(sum over q of (br + i bi)[j, q] * z[i, q, b, ch]).

    The last half of the way back, into real NHWC images: only the real part is made,
    and it is written where NHWC wants it (no complex result, no transposing copy).
    `relu`: writes relu(value + bias[ch]) instead, the bias add and relu that follow a
    fused layer (TF's formulas and roundings). Returns the sum of value * 0 over all
    values: NaN when one was not finite (checked before the relu can hide an inf)."""
    h, bins, n, c = z.shape
    w = br.shape[0]
    acc = np.empty(c, out.dtype)
    probe = np.zeros(c, out.dtype)
    for b in range(n):
        for i in range(h):
            for j in range(w):
                acc[:] = 0
                for q in range(bins):
                    a, e = br[j, q], bi[j, q]
                    for ch in range(c):
                        acc[ch] += a * z[i, q, b, ch].real - e * z[i, q, b, ch].imag
                for ch in range(c):
                    probe[ch] += acc[ch] * 0
                if relu:
                    for ch in range(c):
                        out[b, i, j, ch] = relu_scalar(acc[ch] + bias[ch])
                else:
                    for ch in range(c):
                        out[b, i, j, ch] = acc[ch]
    return probe.sum()


def _transform(images, ph, pw, top, left, conjugate=False):
    """The 2-D DFT of NHWC `images` placed at (top, left) of a ph x pw zero buffer, as
    [bins, N, channels] (bins row-major over ph x (pw // 2 + 1)); or its conjugate."""
    n, h, w, c = images.shape
    fh, fw = _matrices(ph, pw, ("forward", top, h, left, w), images.dtype, conjugate)
    along_columns = _columns_forward(images, fw.real.copy(), fw.imag.copy(),
                                     np.empty((h, fw.shape[0], n, c), fw.dtype))
    return (fh @ along_columns.reshape(h, -1)).reshape(-1, n, c)


def _back_transform(spectrum, ph, pw, top, h, left, w, out, conjugate=False, bias=None):
    """Writes into NHWC `out` the rows top..top+h-1 and columns left..left+w-1 of the
    real images whose transforms are `spectrum` [bins, N, channels] (`conjugate`: whose
    transforms are the conjugates of `spectrum`); with `bias`, relu(image + bias).
    Returns False when a value was not finite (see all_finite)."""
    _, n, c = spectrum.shape
    bh, bw = _matrices(ph, pw, ("back", top, h, left, w), out.dtype, conjugate)
    along_rows = bh @ spectrum.reshape(ph, -1)                      # [h, pw bins * n*c]
    probe = _columns_back(along_rows.reshape(h, -1, n, c), bw.real.copy(), bw.imag.copy(),
                          out, _NO_BIAS if bias is None else bias, bias is not None)
    return bool(np.isfinite(probe))


_NO_BIAS = np.zeros(0, np.float32)      # _columns_back's bias when there is none


def _sizes(x_shape, f_shape, rows, cols):
    (oh, top, bottom), (ow, left, right) = rows, cols
    _, h, w, _ = x_shape
    kh, kw = f_shape[:2]
    return (fourier_size(h, top, bottom, oh, kh), fourier_size(w, left, right, ow, kw))


def _filter_spectrum(f, ph, pw):
    """F^ as [bins, C, OC]: the filter [KH, KW, C, OC] is one KH x KW "image" with C*OC
    channels, at the buffer's corner."""
    kh, kw, c, oc = f.shape
    return _transform(f.reshape(1, kh, kw, c * oc), ph, pw, 0, 0).reshape(-1, c, oc)


def _work(n, bins, *channels):
    """Multiply-adds of one op, to decide whether two workers pay (over_batch)."""
    return 4 * n * bins * int(np.prod(channels))


class _HalfSpectra:
    """The transforms of one NHWC tensor placed at (top, left), half of the batch at a
    time: taken from `spectra` when the other op of the step left them, else made (and
    left there when `keep`). `conjugate`: the conjugate transforms."""

    def __init__(self, spectra, name, tensor, ph, pw, top, left, conjugate, keep):
        self.spectra, self.keep = spectra, keep
        self.tensor, self.place = tensor, (ph, pw, top, left)
        self.conjugate = conjugate
        self.key = (name, tensor.shape, tensor.dtype, ph, pw, top, left, conjugate)

    def get(self, lo, hi):
        spectrum = None if self.spectra is None else self.spectra.take(self.key + (lo, hi))
        if spectrum is None:
            spectrum = _transform(self.tensor[lo:hi], *self.place, self.conjugate)
            if self.spectra is not None and self.keep:
                self.spectra.put(self.key + (lo, hi), spectrum)
        return spectrum


def _images_through_bins(spectra_of, right, ph, pw, region, out, conjugate=False,
                         bias=None):
    """Fills NHWC `out`, half of the batch at a time: the images (rows and columns
    `region` = (top, h, left, w) of the buffer) of spectra_of.get(lo, hi) @ right, bin by
    bin (`conjugate`: of its conjugate; `bias`: relu(image + bias)). Returns `out`, or
    None when a value was not finite (the caller computes the op again with im2col)."""
    n = len(out)

    def half(lo, hi):
        return _back_transform(np.matmul(spectra_of.get(lo, hi), right), ph, pw, *region,
                               out[lo:hi], conjugate, bias)
    finite = over_batch(half, n, _work(n, *right.shape))
    return out if all(finite) else None


# -- the three ops ---------------------------------------------------------------------------
def forward(x, f, rows, cols, spectra=None, bias=None):
    """The NHWC output of a stride-1 convolution of NHWC `x` (float32/64) by `f` (with
    `bias`: relu(output + bias)), or None when a value was not finite."""
    (oh, top, _), (ow, left, _) = rows, cols
    n, oc = x.shape[0], f.shape[3]
    ph, pw = _sizes(x.shape, f.shape, rows, cols)
    filter_hat = _filter_spectrum(f, ph, pw)
    if spectra is not None and spectra.with_input_gradient:
        spectra.put(("filter", f.shape, f.dtype, ph, pw), filter_hat)
    # Y^ = X^ @ conj(F^) = conj(conj(X^) @ F^): conj(X^) comes from conjugate DFT
    # matrices and is what the filter gradient multiplies too; the way back takes the
    # conjugate with conjugate matrices. No pass over a big array conjugates.
    inputs = _HalfSpectra(spectra, "input", x, ph, pw, top, left, conjugate=True, keep=True)
    return _images_through_bins(inputs, filter_hat, ph, pw, (0, oh, 0, ow),
                                np.empty((n, oh, ow, oc), x.dtype), True, bias)


def backprop_input(dy, f, input_shape, rows, cols, spectra=None):
    """d loss / d input (NHWC) of a stride-1 convolution, from the NHWC `dy`; None when
    a value was not finite."""
    (_, top, _), (_, left, _) = rows, cols
    n, h, w, c = input_shape
    ph, pw = _sizes(input_shape, f.shape, rows, cols)
    filter_hat = None if spectra is None else spectra.take(("filter", f.shape, f.dtype,
                                                             ph, pw))
    if filter_hat is None:
        filter_hat = _filter_spectrum(f, ph, pw)
    keep = spectra is not None and spectra.with_input_gradient
    gradients = _HalfSpectra(spectra, "out_backprop", dy, ph, pw, 0, 0, False, keep)
    return _images_through_bins(gradients, filter_hat.transpose(0, 2, 1), ph, pw,
                                (top, h, left, w), np.empty((n, h, w, c), dy.dtype))


def backprop_filter(x, dy, filter_shape, rows, cols, spectra=None):
    """d loss / d filter [KH, KW, C, OC] of a stride-1 convolution; None when a value
    was not finite."""
    (_, top, _), (_, left, _) = rows, cols
    kh, kw, c, oc = filter_shape
    n = x.shape[0]
    ph, pw = _sizes(x.shape, filter_shape, rows, cols)
    inputs = _HalfSpectra(spectra, "input", x, ph, pw, top, left, conjugate=True, keep=False)
    keep = spectra is not None and spectra.with_input_gradient
    gradients = _HalfSpectra(spectra, "out_backprop", dy, ph, pw, 0, 0, False, keep)

    def half(lo, hi):
        # this half's conj(dF^) = conj(X^)^T @ dY^, per bin, and its share of dF: the
        # KH x KW corner of one "image" with C*OC channels (the way back is linear, so
        # each half takes its own back and only the small results are added)
        df_conj = np.matmul(inputs.get(lo, hi).transpose(0, 2, 1), gradients.get(lo, hi))
        df = np.empty((1, kh, kw, c * oc), x.dtype)
        finite = _back_transform(df_conj.reshape(-1, 1, c * oc), ph, pw, 0, kh, 0, kw, df,
                                 conjugate=True)
        return df if finite else None
    parts = over_batch(half, n, _work(n, ph * (pw // 2 + 1), c, oc))
    if any(part is None for part in parts):
        return None
    df = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    return df.reshape(kh, kw, c, oc) if all_finite(df) else None
