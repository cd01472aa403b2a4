"""`tf.random_gamma` (`tf.random.gamma`): samples of Gamma distributions, with TF's
gradient with respect to the shape parameter `alpha`.

`tf.random_gamma(shape, alpha, beta=None)` draws `shape + alpha.shape` samples: for each
of the `shape` draws, one sample of Gamma(alpha[j], beta[j]) for every `j`. TF 1.15 builds
it as `maximum(tiny, RandomGamma(shape, alpha + zeros_like(beta)) / beta)` (the smallest
positive float keeps a sample off zero, where the gamma's log density would be infinite),
and so does this module. A sample is SciPy's inverse gamma CDF of a uniform draw of the
op's Philox stream (random_kernels.py: the seeding rules are TF's, the numbers are not;
TF uses Marsaglia and Tsang's rejection sampler).

The gradient is TF's *implicit reparameterization* (Figurnov et al. 2018): a sample x of
Gamma(alpha, 1) moves with alpha as dx/dalpha = -(dF/dalpha) / (dF/dx), F the gamma CDF
P(alpha, x); `RandomGammaGrad(alpha, sample)` computes it. dF/dx is the density; dF/dalpha
is taken by a central difference of SciPy's regularized incomplete gamma in float64
(step 1e-5 * alpha: truncation and rounding errors both ~1e-10, far below float32's).
"""
import numpy as np

from tfteach.framework import convert, dtypes
from tfteach.framework.registry import gradient, not_differentiable, register_op
from tfteach.kernels.cpu import random_kernels
from tfteach.ops import op_builder
from tfteach.ops.op_builder import apply_op
from tfteach.ops.random_ops import _seed_attrs, _shape_tensor, shape_from_shape_tensor

__all__ = ["random_gamma"]

# -- RandomGamma ---------------------------------------------------------------------------
def _random_gamma_shape(op):
    shape, alpha = op._inputs
    return [(alpha.dtype.base_dtype, shape_from_shape_tensor(shape).concatenate(alpha.shape))]


def _random_gamma_kernel(ctx, shape, alpha):
    """Inverse-transform sampling: x = P^-1(alpha, u) for u uniform in (0, 1). Exact, and
    each sample a smooth function of alpha for its u, so what the gradient says a sample
    does when alpha moves is what it does (finite differences across two Sessions, which
    replay a seeded stream, agree with it)."""
    from scipy import special
    alpha = np.asarray(alpha)
    dtype = alpha.dtype
    dims = random_kernels.output_shape(ctx, shape, dtype) + alpha.shape
    if not dims or 0 in dims:
        return np.zeros(dims, dtype)
    u = random_kernels.generator(ctx).random(dims)
    shapes = np.broadcast_to(alpha.astype(np.float64), dims)
    with np.errstate(all="ignore"):
        values = special.gammaincinv(shapes, u)
    # TF's sampler: NaN for alpha < 0 (and NaN), a sample of 0 for alpha == 0.
    values = np.where(shapes == 0, 0.0, np.where(shapes > 0, values, np.nan))
    return values.astype(dtype)


register_op("RandomGamma", _random_gamma_shape, cpu=_random_gamma_kernel, stateful=True)


# -- RandomGammaGrad: d sample / d alpha ------------------------------------------------------
def _random_gamma_grad_shape(op):
    alpha, sample = op._inputs
    return [(alpha.dtype.base_dtype,
             op_builder.broadcast_static_shape(alpha.shape, sample.shape))]


def sample_derivative(alpha, sample):
    """dx/dalpha for samples x of Gamma(alpha, 1), elementwise (float64)."""
    from scipy import special
    a, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(sample, np.float64))
    h = 1e-5 * np.maximum(a, 1e-3)
    with np.errstate(all="ignore"):
        dcdf_da = (special.gammainc(a + h, x) - special.gammainc(a - h, x)) / (2 * h)
        log_density = (a - 1) * np.log(x) - x - special.gammaln(a)
        return -dcdf_da / np.exp(log_density)


def _random_gamma_grad_kernel(ctx, alpha, sample):
    dtype = np.asarray(alpha).dtype
    return sample_derivative(alpha, sample).astype(dtype)


register_op("RandomGammaGrad", _random_gamma_grad_shape, cpu=_random_gamma_grad_kernel)
# A second derivative through a sample's derivative: TF registers none either.
not_differentiable("RandomGammaGrad")


@gradient("RandomGamma")
def _random_gamma_grad(op, grad):
    """TF's _RandomGammaGrad: alpha's gradient sums grad * dx/dalpha over the draws."""
    from tfteach.framework.graph_functions import control_dependencies
    from tfteach.ops import fill_ops, join_ops, reduction_ops, shape_ops
    shape, alpha = op._inputs
    sample = op._outputs[0]
    with control_dependencies([grad]):
        draws = shape_ops.shape(shape)[0]               # how many leading sample dims
        leading = join_ops.concat([fill_ops.ones([draws], dtypes.int32),
                                   shape_ops.shape(alpha)], 0)
        partial = apply_op("RandomGammaGrad", [shape_ops.reshape(alpha, leading), sample],
                           {"T": alpha.dtype.base_dtype})
        return [None, reduction_ops.reduce_sum(grad * partial,
                                               axis=fill_ops.range(draws))]


# -- tf.random_gamma -----------------------------------------------------------------------
def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples of Gamma(alpha, beta) (rate beta), shape `shape + broadcast(alpha, beta)`."""
    from tfteach.ops import binary_ops, fill_ops
    dtype = dtypes.as_dtype(dtype)
    graph = op_builder.graph_of([shape, alpha, beta])
    with graph.as_default(), graph.name_scope(name or "random_gamma"):
        shape = convert.convert_to_tensor(_shape_tensor(shape), name="shape",
                                          dtype=dtypes.int32)
        alpha = convert.convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert.convert_to_tensor(beta if beta is not None else 1, name="beta",
                                         dtype=dtype)
        # TF 1.15 takes this before building RandomGamma: an integer dtype fails here,
        # with NumPy's ValueError ("data type <class 'numpy.int32'> not inexact").
        tiny = np.finfo(dtype.as_numpy_dtype).tiny
        alpha_broadcast = alpha + fill_ops.zeros_like(beta)
        attrs = _seed_attrs(seed)
        attrs.update(S=shape.dtype, T=dtype.base_dtype)
        sample = apply_op("RandomGamma", [shape, alpha_broadcast], attrs)
        return binary_ops.maximum(tiny, sample / beta)
