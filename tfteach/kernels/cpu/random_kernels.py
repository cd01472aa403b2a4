"""CPU kernels of the random ops.

`RandomUniform`, `RandomUniformInt`, `RandomStandardNormal` and `TruncatedNormal` draw
TensorFlow's own numbers: its Philox-4x32-10 stream and its distributions (philox.py),
so a seeded op gives what TensorFlow gives. The others (`RandomShuffle`, `Multinomial`,
`RandomGamma`, `SampleDistortedBoundingBoxV2`) draw from NumPy's Philox generator
(`generator`), with TensorFlow's seed rules but not its numbers.

Where the random state lives is the point of this module. TensorFlow's random kernel
owns its generator, seeded from the op's (seed, seed2) attributes; the kernel object
belongs to one op in one Session. Here the stream is kept in `ctx.state`, which is
private to one op in one Session too, so:
- each `sess.run` draws the *next* numbers of the op's sequence;
- a new Session starts the sequence again (its kernel contexts are new);
- two ops with the same (seed, seed2) produce the same numbers;
- seed == seed2 == 0 means "not seeded": the stream starts from fresh OS entropy.
"""
import numpy as np

from tfteach.framework.errors import InvalidArgumentError
from tfteach.kernels.cpu import philox
from tfteach.kernels.cpu.output_limits import check_shape

__all__ = ["generator", "stream", "standard_normal_kernel", "truncated_normal_kernel",
           "uniform_kernel", "uniform_int_kernel", "shuffle_kernel", "multinomial_kernel",
           "scale_shift_kernel", "uniform_range_kernel"]

def generator(ctx):
    """The op's generator in this session, created on the op's first run."""
    gen = ctx.state.get("generator")
    if gen is None:
        seed, seed2 = ctx.attrs["seed"], ctx.attrs["seed2"]
        if seed == 0 and seed2 == 0:
            bit_generator = np.random.Philox()            # nondeterministic, as in TF
        else:
            # As TF's PhiloxRandom(seed, seed2): the key from `seed`, the start of the
            # counter from `seed2`, so each op seed gets its own stream.
            bit_generator = np.random.Philox(key=seed, counter=[0, 0, seed2, 0])
        # setdefault: two threads making it at once both use the first one made (a
        # second generator of the same seed would replay the same numbers). NumPy's
        # Generator locks its bit generator while it draws: concurrent runs draw
        # different numbers from the one stream, as TF's shared Philox does.
        gen = ctx.state.setdefault("generator", np.random.Generator(bit_generator))
    return gen


def _shape_text(shape):
    return "[%s]" % ",".join(str(d) for d in shape)


def output_shape(ctx, shape, dtype=None):
    """The `shape` input's value as a tuple, with TF's runtime checks (`dtype`: the
    output's, when the op's attrs do not name it `dtype` or `Tout`)."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise InvalidArgumentError(None, ctx.op, "shape must be a vector of {int32,int64}, got "
                                   "shape %s" % _shape_text(shape.shape))
    dims = tuple(int(d) for d in shape)
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(None, ctx.op, "Dimension %d must be >= 0" % d)
    check_shape(ctx, dims, dtype or (ctx.attrs.get("dtype") or ctx.attrs["Tout"]).np)
    return dims


def stream(ctx):
    """The op's place in TensorFlow's Philox stream in this session (philox.py), made on
    its first run: the numbers of RandomUniform, RandomUniformInt, RandomStandardNormal
    and TruncatedNormal are TF's own."""
    found = ctx.state.get("philox")
    if found is None:
        # setdefault: two threads' first runs both use the stream made first
        found = ctx.state.setdefault("philox", philox.Stream(ctx.attrs["seed"],
                                                             ctx.attrs["seed2"]))
    return found


def standard_normal_kernel(ctx, shape):
    return philox.normal(stream(ctx), output_shape(ctx, shape), ctx.attrs["dtype"].np)


def truncated_normal_kernel(ctx, shape):
    """Normal values with |x| < 2 (TF keeps a value strictly inside 2 standard
    deviations and draws again for the others)."""
    return philox.truncated_normal(stream(ctx), output_shape(ctx, shape),
                                   ctx.attrs["dtype"].np)


def uniform_kernel(ctx, shape):
    """Floats in [0, 1)."""
    return philox.uniform(stream(ctx), output_shape(ctx, shape), ctx.attrs["dtype"].np)


def _scalar(ctx, value, name):
    value = np.asarray(value)
    if value.ndim != 0:
        raise InvalidArgumentError(None, ctx.op, "%s must be 0-D, got shape %s"
                                   % (name, _shape_text(value.shape)))
    return value[()]


def uniform_int_kernel(ctx, shape, minval, maxval):
    """Integers in [minval, maxval)."""
    dims = output_shape(ctx, shape)
    low, high = _scalar(ctx, minval, "minval"), _scalar(ctx, maxval, "maxval")
    if low >= high and int(np.prod(dims)) > 0:
        raise InvalidArgumentError(None, ctx.op, "Need minval < maxval, got %d >= %d"
                                   % (low, high))
    dtype = ctx.attrs["Tout"].np
    if int(np.prod(dims)) == 0:
        return np.zeros(dims, dtype)
    return philox.uniform_int(stream(ctx), dims, low, high, dtype)


def shuffle_kernel(ctx, value):
    """A random permutation of `value` along its first dimension."""
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    return value[generator(ctx).permutation(value.shape[0])]


def multinomial_kernel(ctx, logits, num_samples):
    """`num_samples` class indices per row, drawn with probabilities softmax(logits)."""
    logits = np.asarray(logits, dtype=np.float64)
    if logits.ndim != 2:
        raise InvalidArgumentError(None, ctx.op, "logits should be a matrix, got shape %s"
                                   % _shape_text(logits.shape))
    count = int(_scalar(ctx, num_samples, "num_samples"))
    if count < 0:
        raise InvalidArgumentError(None, ctx.op, "num_samples should be nonnegative, got %d"
                                   % count)
    batch, classes = logits.shape
    if classes == 0:
        raise InvalidArgumentError(None, ctx.op, "num_classes should be positive, got 0")
    out_dtype = ctx.attrs["output_dtype"].np
    if batch == 0 or count == 0:
        return np.zeros((batch, count), out_dtype)
    # Inverse-CDF sampling: cumulative (unnormalised) probabilities, then a uniform
    # number scaled to each row's total picks the first class whose CDF exceeds it.
    finite_max = np.max(np.where(np.isfinite(logits), logits, -np.inf), axis=1, keepdims=True)
    weights = np.exp(logits - np.where(np.isfinite(finite_max), finite_max, 0))
    cdf = np.cumsum(weights, axis=1)
    draws = generator(ctx).random((batch, count)) * cdf[:, -1:]
    samples = np.empty((batch, count), out_dtype)
    for row in range(batch):
        picked = np.searchsorted(cdf[row], draws[row], side="right")
        samples[row] = np.minimum(picked, classes - 1)
    return samples


# -- the affine step of random_normal / truncated_normal / random_uniform ------------------
def scale_shift_kernel(ctx, values, scale, shift):
    """values * scale + shift (stddev and mean of the normal ops)."""
    return np.asarray(values * scale + shift).astype(values.dtype, copy=False)


def uniform_range_kernel(ctx, values, minval, maxval):
    """Maps [0, 1) onto [minval, maxval), as TF's rnd * (maxval - minval) + minval."""
    if type(values) is np.ndarray and values.dtype.kind == "f" and np.ndim(minval) == 0 \
            and np.ndim(maxval) == 0 and minval == 0 and maxval == 1:
        # The default range (every dropout's): rnd * 1 + 0 is rnd, bit for bit (the
        # values are finite and >= +0.0). A copy, not the input itself: each op's
        # output is its own tensor (a virtual GPU charges each). ~2 us, not ~10.
        return values.copy()
    return np.asarray(values * (maxval - minval) + minval).astype(values.dtype, copy=False)
