"""im2col and col2im: turning a convolution into one matrix product (Numba loops).

A convolution computes, for every output pixel (b, i, j) and output channel o,

    out[b, i, j, o] = sum over (a, e, c) of  x[b, i*sh + a*dh - top, j*sw + e*dw - left, c]
                                             * f[a, e, c, o]

(a, e run over the filter's rows and columns, c over input channels; positions outside
the image read 0: that is the padding). Copy, for every output pixel, the window of
input values it reads into one row of a matrix `cols`:

    cols[(b, i, j), (a, e, c)] = x[b, i*sh + a*dh - top, j*sw + e*dw - left, c]

and the whole convolution is one matrix product, `cols @ f.reshape(-1, out_channels)`,
which BLAS computes near the machine's peak speed. That copy is `im2col` ("image to
columns"). `col2im` is its transpose: it adds every entry of a `cols`-shaped matrix back
onto the input pixel it was copied from, which is what the input gradient needs.

Both are memory-bound copies, written as plain loops over an NHWC image: the innermost
loop walks the channels, which are contiguous in memory both in `x` and in a `cols` row.
Each call handles the images it is given; two_workers.py runs two halves of a
batch at once, which is why they release the GIL (`nogil=True`).
"""
from numba import njit

__all__ = ["im2col", "im2col_transposed", "col2im"]


@njit(cache=True, nogil=True)
def im2col(x, kh, kw, sh, sw, dh, dw, top, left, oh, ow, cols):
    """Fills `cols` [n*oh*ow, kh*kw*c] with the input window of every output pixel."""
    n, h, w, c = x.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                r = (b * oh + i) * ow + j          # the output pixel's row in cols
                for a in range(kh):
                    y = i * sh + a * dh - top      # input row read by filter row a
                    for e in range(kw):
                        xx = j * sw + e * dw - left
                        k0 = (a * kw + e) * c      # where filter tap (a, e) starts
                        if 0 <= y < h and 0 <= xx < w:
                            for ch in range(c):
                                cols[r, k0 + ch] = x[b, y, xx, ch]
                        else:                      # the window hangs over the border
                            for ch in range(c):
                                cols[r, k0 + ch] = 0
    return cols


@njit(cache=True, nogil=True)
def im2col_transposed(x, kh, kw, sh, sw, dh, dw, top, left, oh, ow, cols_t):
    """Fills `cols_t` [kh*kw*c, n*oh*ow], the patch matrix transposed.

    For an image with one channel (MNIST's first layer) a row of `cols` holds only
    kh*kw single values, and `im2col` spends its time on per-value bookkeeping. Here each
    row of `cols_t` (one filter tap) is filled with runs of consecutive pixels of one image
    row: 2x faster measured for 28x28x1 with a 5x5 filter. BLAS multiplies `cols_t.T`
    in place, so the products do not change.
    """
    n, h, w, c = x.shape
    for a in range(kh):
        for e in range(kw):
            shift = e * dw - left                        # input column = j * sw + shift
            j_lo = min(ow, max(0, (sw - 1 - shift) // sw))   # first j inside the image
            j_hi = max(j_lo, min(ow, (w - shift + sw - 1) // sw))
            for ch in range(c):
                row = cols_t[(a * kw + e) * c + ch]
                for b in range(n):
                    for i in range(oh):
                        r0 = (b * oh + i) * ow
                        y = i * sh + a * dh - top
                        if y < 0 or y >= h:            # the whole run is padding
                            row[r0:r0 + ow] = 0
                            continue
                        row[r0:r0 + j_lo] = 0
                        for j in range(j_lo, j_hi):
                            row[r0 + j] = x[b, y, j * sw + shift, ch]
                        row[r0 + j_hi:r0 + ow] = 0
    return cols_t


@njit(cache=True, nogil=True)
def col2im(cols, kh, kw, sh, sw, dh, dw, top, left, oh, ow, dx):
    """Adds each entry of `cols` onto the pixel of `dx` (zeros, NHWC) it came from.

    Padding positions received nothing from the image, so their entries are dropped.
    """
    n, h, w, c = dx.shape
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                r = (b * oh + i) * ow + j
                for a in range(kh):
                    y = i * sh + a * dh - top
                    if y < 0 or y >= h:
                        continue
                    for e in range(kw):
                        xx = j * sw + e * dw - left
                        if xx < 0 or xx >= w:
                            continue
                        k0 = (a * kw + e) * c
                        for ch in range(c):
                            dx[b, y, xx, ch] += cols[r, k0 + ch]
    return dx
