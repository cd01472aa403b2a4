"""Random TF1 programs for the differential tests (test_random_programs_reference.py).

A program feeds one random input (a dtype, a shape with sides 0-4, fed through a
placeholder whose static shape is known, has unknown dimensions or an unknown rank, or
built as a constant) through a chain of 1-3 random ops
with random arguments, and fetches the result or its gradient. Everything is drawn from
one seed, the same way for both modules, so `build(tf)` builds the same program on
TensorFlow and on tfteach.

Each op builder gets (tf, x, rng) and returns (fetch, label) or None when the op does
not apply to x (for example a reduction axis of a scalar). Arguments are drawn valid for
TF 1.15; programs TF 1.15 and TF 2.x answer differently are not drawn (see the notes on
argmax and transpose below).
"""
import numpy as np

__all__ = ["OPS", "make_program", "make_nn_program", "NN_STATIC_SHAPES_DIFFER", "SHAPE_OPS",
           "make_control_flow_program", "make_training_program", "make_shape_program",
           "make_batch_training_program"]

OPS = []


def _op(fn):
    OPS.append(fn)
    return fn


def _axis(rng, rank):
    return int(rng.randint(-rank, rank)) if rank else 0


def _array(rng, shape, dtype):
    if dtype in ("int32", "int64"):
        return rng.randint(-5, 6, size=shape).astype(dtype)
    return np.asarray(rng.randn(*shape) * 2).astype(dtype)


@_op
def unary(tf, x, rng):
    names = ["abs", "negative", "square", "sign"]
    if x.dtype.is_floating:
        names += ["floor", "ceil", "round", "tanh", "sigmoid", "exp", "reciprocal"]
    name = rng.choice(names)
    return getattr(tf, name)(x), name


@_op
def binary(tf, x, rng):
    names = ["add", "subtract", "multiply", "maximum", "minimum", "squared_difference",
             "floordiv", "floormod", "truncatemod", "equal", "less", "greater_equal"]
    if x.dtype.is_bool:
        return None
    name = rng.choice(names + (["realdiv"] if x.dtype.is_floating else ["truediv"]))
    rank = x.shape.ndims or 0
    tail = x.shape.as_list()[rng.randint(0, rank + 1):] if x.shape.ndims else []
    if None in tail or rng.rand() < 0.3:
        tail = []
    y = _array(rng, tuple(tail), x.dtype.name)
    if x.dtype.is_integer and name in ("floordiv", "floormod", "truncatemod", "truediv"):
        y = np.where(y == 0, 3, y).astype(y.dtype)      # integer division by 0 is an error
    return getattr(tf, name)(x, y), name


@_op
def reduce(tf, x, rng):
    if x.dtype.is_bool or x.shape.ndims is None:
        return None
    name = rng.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"])
    rank = x.shape.ndims
    kind = rng.choice(["none", "int", "list", "empty"]) if rank else "none"
    axis = {"none": None, "int": _axis(rng, rank) if rank else None, "empty": [],
            "list": sorted({_axis(rng, rank) % rank for _ in range(2)}) if rank else None}[kind]
    keepdims = bool(rng.rand() < 0.5)
    return getattr(tf, name)(x, axis=axis, keepdims=keepdims), "%s %s %s" % (name, axis, keepdims)


@_op
def reduce_bool(tf, x, rng):
    if x.shape.ndims is None:
        return None
    name = rng.choice(["reduce_any", "reduce_all"])
    axis = _axis(rng, x.shape.ndims) if x.shape.ndims else None
    return getattr(tf, name)(tf.cast(x, tf.bool), axis=axis), "%s %s" % (name, axis)


@_op
def argmax(tf, x, rng):
    # (bool: TF 2.x takes it, TF 1.15 and tfteach refuse it)
    if not x.shape.ndims or x.dtype.is_bool:
        return None
    name = rng.choice(["argmax", "argmin"])
    axis = _axis(rng, x.shape.ndims)
    return getattr(tf, name)(x, axis=axis), "%s %d" % (name, axis)


@_op
def cumulative(tf, x, rng):
    if not x.shape.ndims or x.dtype.is_bool:
        return None
    name = rng.choice(["cumsum", "cumprod"])
    axis, exclusive, reverse = _axis(rng, x.shape.ndims), rng.rand() < .5, rng.rand() < .5
    return (getattr(tf, name)(x, axis=axis, exclusive=bool(exclusive), reverse=bool(reverse)),
            "%s %d %s %s" % (name, axis, exclusive, reverse))


@_op
def transpose(tf, x, rng):
    # (rank known only: TF's Grappler drops a Transpose whose perm is empty, TF 1.15's
    # kernel and tfteach refuse it when the rank is not 0)
    if x.shape.ndims is None:
        return None
    perm = [int(p) for p in rng.permutation(x.shape.ndims)]
    return tf.transpose(x, perm), "transpose %s" % perm


@_op
def reverse(tf, x, rng):
    if not x.shape.ndims:
        return None
    axes = sorted({_axis(rng, x.shape.ndims) for _ in range(2)})
    return tf.reverse(x, axes), "reverse %s" % axes


@_op
def tile(tf, x, rng):
    if x.shape.ndims is None:
        return None
    multiples = [int(rng.randint(0, 3)) for _ in range(x.shape.ndims)]
    return tf.tile(x, multiples), "tile %s" % multiples


@_op
def pad(tf, x, rng):
    if x.shape.ndims is None:
        return None
    mode = rng.choice(["CONSTANT", "REFLECT", "SYMMETRIC"])
    paddings = [[int(rng.randint(0, 3)), int(rng.randint(0, 3))] for _ in range(x.shape.ndims)]
    return tf.pad(x, paddings, mode), "pad %s %s" % (paddings, mode)


@_op
def expand_dims(tf, x, rng):
    if x.shape.ndims is None:
        return None
    axis = int(rng.randint(-x.shape.ndims - 1, x.shape.ndims + 1))
    return tf.expand_dims(x, axis), "expand_dims %d" % axis


@_op
def squeeze(tf, x, rng):
    if x.shape.ndims is None:
        return None
    ones = [i for i, d in enumerate(x.shape.as_list()) if d == 1]
    axis = [ones[0]] if ones and rng.rand() < .5 else None
    return tf.squeeze(x, axis), "squeeze %s" % axis


@_op
def concat(tf, x, rng):
    if not x.shape.ndims:
        return None
    axis = _axis(rng, x.shape.ndims)
    return tf.concat([x, x], axis), "concat %d" % axis


@_op
def stack(tf, x, rng):
    if x.shape.ndims is None:
        return None
    axis = int(rng.randint(-x.shape.ndims - 1, x.shape.ndims + 1))
    return tf.stack([x, x], axis), "stack %d" % axis


@_op
def unstack(tf, x, rng):
    if not x.shape.ndims or x.shape.as_list()[0] in (None, 0):
        return None
    return tf.unstack(x)[-1], "unstack"


@_op
def split(tf, x, rng):
    if not x.shape.ndims or x.shape.as_list()[-1] is None:
        return None
    n = x.shape.as_list()[-1]
    cut = int(rng.randint(0, n + 1))
    return tf.split(x, [cut, -1], axis=-1)[int(rng.randint(0, 2))], "split at %d" % cut


@_op
def gather(tf, x, rng):
    if not x.shape.ndims:
        return None
    axis = int(rng.randint(0, x.shape.ndims))
    n = x.shape.as_list()[axis]
    if not n:
        return None
    shape = tuple(int(rng.randint(1, 3)) for _ in range(rng.randint(0, 3)))
    indices = rng.randint(0, n, size=shape).astype("int32")
    return tf.gather(x, indices, axis=axis), "gather %d %s" % (axis, indices.tolist())


@_op
def one_hot(tf, x, rng):
    if x.shape.ndims is None or x.shape.ndims > 2 or x.dtype.is_bool:
        return None
    axis = int(rng.randint(-1, x.shape.ndims + 1))
    return tf.one_hot(tf.cast(x, tf.int32), 3, axis=axis), "one_hot %d" % axis


@_op
def softmax(tf, x, rng):
    if not x.shape.ndims or not x.dtype.is_floating:
        return None
    name, axis = rng.choice(["softmax", "log_softmax"]), _axis(rng, x.shape.ndims)
    return getattr(tf.nn, name)(x, axis=axis), "%s %d" % (name, axis)


@_op
def top_k(tf, x, rng):
    # (k >= 1: TF's gradient of a k = 0 top_k of an empty row fails in its own range op)
    if not x.shape.ndims or x.dtype.is_bool or x.dtype.name == "int64":
        return None
    n = x.shape.as_list()[-1]
    if not n:
        return None
    k = int(rng.randint(1, n + 1))
    return tf.nn.top_k(x, k)[int(rng.randint(0, 2))], "top_k %d" % k


@_op
def strided_slice(tf, x, rng):
    """x[...] with slices (negative steps too), ints, constant tensor ints, tf.newaxis and
    an ellipsis; an index out of range is an error, at build time or when run."""
    if not x.shape.ndims:
        return None
    index, labels, ellipsis = [], [], False
    for _ in range(rng.randint(1, x.shape.ndims + 2)):
        kind = rng.choice(["slice", "slice", "int", "tensor int", "newaxis", "ellipsis"])
        if kind == "ellipsis" and not ellipsis:
            ellipsis = True
            index.append(Ellipsis)
        elif kind == "newaxis":
            index.append(tf.newaxis)
        elif kind in ("int", "tensor int"):
            i = int(rng.randint(-5, 5))
            index.append(i if kind == "int" else tf.constant(i))
            kind = "%s %d" % (kind, i)
        else:
            begin = int(rng.randint(-6, 7)) if rng.rand() < .6 else None
            end = int(rng.randint(-6, 7)) if rng.rand() < .6 else None
            step = int(rng.choice([1, 2, 3, -1, -2])) if rng.rand() < .6 else None
            index.append(slice(begin, end, step))
            kind = "slice(%s, %s, %s)" % (begin, end, step)
        labels.append(kind)
    return x[tuple(index)], "x[%s]" % ", ".join(labels)


@_op
def cast(tf, x, rng):
    to = rng.choice(["float32", "float64", "int32", "int64", "bool"])
    return tf.cast(x, to), "cast %s" % to


@_op
def clip(tf, x, rng):
    if x.dtype.is_bool:
        return None
    return tf.clip_by_value(x, tf.cast(-1, x.dtype), tf.cast(2, x.dtype)), "clip"


@_op
def matmul(tf, x, rng):
    if x.shape.ndims != 2 or None in x.shape.as_list() or x.dtype.name not in (
            "float32", "float64", "int32"):
        return None
    ta, tb = bool(rng.rand() < .5), bool(rng.rand() < .5)
    inner = x.shape.as_list()[0 if ta else 1]
    y = _array(rng, (3, inner) if tb else (inner, 3), x.dtype.name)
    return tf.matmul(x, y, transpose_a=ta, transpose_b=tb), "matmul %s %s" % (ta, tb)


@_op
def where(tf, x, rng):
    if x.shape.ndims is None or None in x.shape.as_list():
        return None
    condition = rng.rand(*x.shape.as_list()) < 0.5
    return tf.where(condition, x, tf.zeros_like(x)), "where"


@_op
def moments(tf, x, rng):
    if not x.shape.ndims or not x.dtype.is_floating:
        return None
    axes = sorted({int(rng.randint(0, x.shape.ndims)) for _ in range(2)})
    return tf.nn.moments(x, axes, keep_dims=bool(rng.rand() < .5))[1], "moments %s" % axes


@_op
def l2_normalize(tf, x, rng):
    if not x.shape.ndims or not x.dtype.is_floating:
        return None
    axis = _axis(rng, x.shape.ndims)
    return tf.nn.l2_normalize(x, axis), "l2_normalize %d" % axis


@_op
def count_nonzero(tf, x, rng):
    if x.shape.ndims is None:
        return None
    axis = _axis(rng, x.shape.ndims) if x.shape.ndims and rng.rand() < .7 else None
    return tf.count_nonzero(x, axis=axis), "count_nonzero %s" % axis


def make_program(seed):
    """(build(tf) -> (fetches, feed_dict, label), gradient?) for one seed."""
    rng = np.random.RandomState(seed)
    dtype = rng.choice(["float32", "float64", "int32", "int64"])
    shape = tuple(int(rng.randint(0, 5)) if rng.rand() < 0.1 else int(rng.randint(1, 5))
                  for _ in range(rng.randint(0, 4)))
    value = _array(rng, shape, dtype)
    feed = rng.choice(["constant", "known", "unknown dims", "unknown rank"])
    length = rng.randint(1, 4)
    op_seed = int(rng.randint(1 << 30))
    gradient = dtype.startswith("float") and feed != "constant" and rng.rand() < 0.7

    def build(tf):
        ops_rng = np.random.RandomState(op_seed)
        if feed == "constant":
            x, feeds = tf.constant(value), None
        else:
            static = {"known": shape, "unknown dims": [None] * len(shape)}.get(feed)
            x = tf.placeholder(tf.as_dtype(dtype), static)
            feeds = {x: value}
        y, labels = x, ["%s%s %s" % (dtype, list(shape), feed)]
        for _ in range(length):
            for _ in range(10):             # ops drawn until one applies to y
                step = OPS[ops_rng.randint(len(OPS))](tf, y, ops_rng)
                if step is not None:
                    y, label = step
                    labels.append(label)
                    break
        if gradient and y.dtype.is_floating and y is not x:
            weights = tf.constant(ops_rng.randn(3).astype(y.dtype.name))
            loss = tf.reduce_sum(y * y) * weights[0]
            fetch = tf.gradients(loss, x)[0]
            labels.append("gradient")
            if fetch is None:
                fetch = y
        else:
            fetch = y
        return fetch, feeds, " -> ".join(labels)
    return build


# -- neural-network layers on random images -----------------------------------------------
# (static shapes of softmax_cross_entropy_with_logits_v2 and conv2d_transpose are left out
# of the comparison: TF 2.x infers more than TF 1.15's Python wrappers, which tfteach
# follows; VALID windows always fit, since TF 2's oneDNN kernels abort on empty outputs)
NN_STATIC_SHAPES_DIFFER = ("softmax_xent", "conv2d_transpose")


def make_nn_program(seed):
    """(build(tf) -> (fetches, feed_dict, label)) of one layer on a random NHWC image,
    fetching its output and the gradients of a weighted square sum of it."""
    rng = np.random.RandomState(seed)
    kind = rng.choice(["conv2d", "pool", "depthwise", "conv2d_transpose", "activation",
                       "softmax_xent", "sparse_xent", "sigmoid_xent", "bias_add",
                       "batch_norm", "fused_batch_norm", "lrn"])
    dtype = "float32" if kind in ("fused_batch_norm", "lrn") else rng.choice(
        ["float32", "float64"])
    known = bool(rng.rand() < 0.5) or kind == "depthwise"   # (TF's depthwise with a rate
    build_seed = int(rng.randint(1 << 30))                   # needs known shapes)

    def build(tf):
        r = np.random.RandomState(build_seed)
        feeds = {}

        def feed(value):
            p = tf.placeholder(tf.as_dtype(value.dtype),
                               value.shape if known else [None] * value.ndim)
            feeds[p] = value
            return p
        n, h, w, c = (int(v) for v in (r.randint(1, 3), r.randint(1, 7), r.randint(1, 7),
                                       r.randint(1, 4)))
        image = r.randn(n, h, w, c).astype(dtype)
        padding, stride = r.choice(["SAME", "VALID"]), int(r.randint(1, 4))
        kh, kw = int(r.randint(1, 4)), int(r.randint(1, 4))
        dilation = int(r.choice([1, 1, 2])) if stride == 1 else 1
        if padding == "VALID":          # the (dilated) window fits the image
            kh = max(1, min(kh, (h - 1) // dilation + 1))
            kw = max(1, min(kw, (w - 1) // dilation + 1))
        label = "%s %s %s%s k%dx%d s%d d%d %s" % (kind, dtype, "known " if known else "",
                                                  image.shape, kh, kw, stride, dilation,
                                                  padding)
        x = feed(image)
        wrt = [x]
        if kind == "conv2d":
            f = feed(r.randn(kh, kw, c, int(r.randint(1, 4))).astype(dtype))
            y, wrt = tf.nn.conv2d(x, f, [1, stride, stride, 1], padding,
                                  dilations=[1, dilation, dilation, 1]), [x, f]
            if dilation > 1:    # TF's CPU kernels have no dilated gradients; tfteach does
                wrt = []
        elif kind == "depthwise":
            f = feed(r.randn(kh, kw, c, int(r.randint(1, 3))).astype(dtype))
            y, wrt = tf.nn.depthwise_conv2d(x, f, [1, stride, stride, 1], padding,
                                            rate=[dilation] * 2 if dilation > 1 else None), [x, f]
        elif kind == "pool":
            name = r.choice(["max_pool", "avg_pool"])
            label += " " + name
            y = getattr(tf.nn, name)(x, [1, kh, kw, 1], [1, stride, stride, 1], padding)
        elif kind == "conv2d_transpose":
            oc = int(r.randint(1, 4))
            f = feed(r.randn(kh, kw, oc, c).astype(dtype))
            out_h = (h - 1) * stride + (kh if padding == "VALID" else 1)
            out_w = (w - 1) * stride + (kw if padding == "VALID" else 1)
            y, wrt = tf.nn.conv2d_transpose(x, f, [n, out_h, out_w, oc],
                                            [1, stride, stride, 1], padding), [x, f]
        elif kind == "activation":
            name = r.choice(["relu", "relu6", "elu", "selu", "softplus", "softsign",
                             "leaky_relu", "softmax", "log_softmax", "sigmoid", "tanh"])
            label += " " + name
            y = getattr(tf.nn, name)(x * 3.0)
        elif kind in ("softmax_xent", "sparse_xent", "sigmoid_xent"):
            logits = tf.reshape(x, [-1, c])
            rows = n * h * w
            if kind == "softmax_xent":
                labels = r.rand(rows, c).astype(dtype)
                labels /= labels.sum(axis=1, keepdims=True)
                y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
            elif kind == "sparse_xent":
                y = tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=r.randint(0, c, rows).astype("int32"), logits=logits)
            else:
                y = tf.nn.sigmoid_cross_entropy_with_logits(
                    labels=r.rand(rows, c).astype(dtype), logits=logits * 4.0)
        elif kind == "bias_add":
            b = feed(r.randn(c).astype(dtype))
            y, wrt = tf.nn.bias_add(x, b), [x, b]
        elif kind == "batch_norm":
            mean, variance = tf.nn.moments(x, [0, 1, 2])
            y = tf.nn.batch_normalization(x, mean, variance, r.randn(c).astype(dtype),
                                          (r.rand(c) + 0.5).astype(dtype), 1e-3)
        elif kind == "fused_batch_norm":
            scale, offset = (r.rand(c) + 0.5).astype(dtype), r.randn(c).astype(dtype)
            if r.rand() < 0.5:
                y = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)[0]
            else:
                label += " inference"
                y = tf.nn.fused_batch_norm(x, scale, offset, mean=r.randn(c).astype(dtype),
                                           variance=(r.rand(c) + 0.5).astype(dtype),
                                           epsilon=1e-3, is_training=False)[0]
        else:
            radius = int(r.randint(0, 3))
            label += " radius %d" % radius
            y = tf.nn.lrn(x, radius, 1.0, 0.5, 0.75)
        weight = float(r.randn())
        grads = tf.gradients(tf.reduce_sum(y * y) * weight, wrt)
        return [y] + [g for g in grads if g is not None], feeds, label
    return build, kind


# -- tf.cond and tf.while_loop around random elementwise chains ------------------------------
_ELEMENTWISE = ["tanh", "sin", "square", "negative", "abs", "sigmoid", "exp", "add",
                "multiply", "maximum", "clip"]


def _elementwise(tf, name, v, c):
    if name == "exp":
        return tf.exp(v * 0.1)
    if name in ("add", "multiply", "maximum"):
        return getattr(tf, name)(v, c)
    if name == "clip":
        return tf.clip_by_value(v, -1.5, 1.5)
    return getattr(tf, name)(v)


def make_control_flow_program(seed):
    """(build(tf) -> (fetches, feed_dict, label)): a cond, a loop, a cond in a loop, a
    loop in a cond or two nested loops, each branch and body a chain of elementwise ops
    (some with a captured constant w), fed its predicate and iteration count (0-3);
    fetches the result and its gradients with respect to x and w."""
    rng = np.random.RandomState(seed)
    kind = rng.choice(["cond", "while", "cond_in_while", "while_in_cond", "nested_while"])
    shape = tuple(int(rng.randint(0, 4)) for _ in range(rng.randint(0, 3)))
    dtype = rng.choice(["float32", "float64"])
    value = np.asarray(rng.randn(*shape)).astype(dtype)
    known, pred, iterations = rng.rand() < .5, bool(rng.rand() < .5), int(rng.randint(0, 4))
    chains = [[rng.choice(_ELEMENTWISE) for _ in range(rng.randint(1, 3))] for _ in range(4)]
    constants = rng.randn(4).astype(dtype)
    label = "%s %s %s%s pred=%s n=%d %s" % (kind, dtype, "known " if known else "", shape,
                                            pred, iterations, chains)

    def build(tf):
        x = tf.placeholder(tf.as_dtype(dtype), shape if known else None)
        p, n = tf.placeholder(tf.bool, []), tf.placeholder(tf.int32, [])
        w = tf.constant(constants[0])

        def chain(v, k):
            for name in chains[k]:
                v = _elementwise(tf, name, v, w if k % 2 else constants[k])
            return v

        def branch(v):
            return tf.cond(p, lambda: chain(v, 0), lambda: chain(v, 1))

        def loop(v, inner=None):
            def body(i, u):
                u = chain(u, 2)
                u = branch(u) if inner == "cond" else loop(u) if inner == "while" else u
                return i + 1, u
            return tf.while_loop(lambda i, u: i < n, body, [0, v])[1]
        y = {"cond": lambda: branch(x), "while": lambda: loop(x),
             "cond_in_while": lambda: loop(x, "cond"),
             "nested_while": lambda: loop(x, "while"),
             "while_in_cond": lambda: tf.cond(p, lambda: loop(x), lambda: chain(x, 3))}[kind]()
        grads = tf.gradients(tf.reduce_sum(y * y) * w, [x, w])
        return [y] + [g for g in grads if g is not None], {x: value, p: pred,
                                                          n: iterations}, label
    return build


# -- a few training steps of a random dense network -------------------------------------------
_OPTIMIZERS = {
    "sgd": lambda tf, lr: tf.train.GradientDescentOptimizer(lr),
    "momentum": lambda tf, lr: tf.train.MomentumOptimizer(lr, 0.9),
    "nesterov": lambda tf, lr: tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True),
    "adam": lambda tf, lr: tf.train.AdamOptimizer(lr),
    "adagrad": lambda tf, lr: tf.train.AdagradOptimizer(lr),
    "rmsprop": lambda tf, lr: tf.train.RMSPropOptimizer(lr),
    "rmsprop_centered": lambda tf, lr: tf.train.RMSPropOptimizer(lr, momentum=0.5,
                                                                 centered=True),
    "adadelta": lambda tf, lr: tf.train.AdadeltaOptimizer(lr * 10),
}


def make_training_program(seed):
    """(run(tf) -> (losses, variable values, variable names), label): a dense network of
    1-2 layers with random sizes and activations, a random loss and optimizer, trained
    1-3 steps from the same initial values on the same batch."""
    rng = np.random.RandomState(seed)
    n_in, batch = int(rng.randint(1, 5)), int(rng.randint(1, 5))
    sizes = [int(rng.randint(1, 5)) for _ in range(rng.randint(1, 3))]
    activations = [rng.choice(["relu", "tanh", "sigmoid", "elu", "none"]) for _ in sizes]
    optimizer, lr = rng.choice(sorted(_OPTIMIZERS)), float(rng.choice([0.01, 0.1, 0.5]))
    loss_kind = rng.choice(["mse", "softmax", "sigmoid", "l1_l2"])
    steps = int(rng.randint(1, 4))
    x_value = rng.randn(batch, n_in).astype(np.float32)
    weights, previous = [], n_in
    for size in sizes:
        weights.append(((rng.randn(previous, size) * 0.7).astype(np.float32),
                        (rng.randn(size) * 0.1).astype(np.float32)))
        previous = size
    target = rng.rand(batch, previous).astype(np.float32)
    if loss_kind == "softmax":
        target /= target.sum(axis=1, keepdims=True)
    label = "%s lr=%g %s sizes=%s %s steps=%d" % (optimizer, lr, loss_kind, sizes,
                                                  activations, steps)

    def run(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, n_in])
            h = x
            for i, ((w, b), activation) in enumerate(zip(weights, activations)):
                h = tf.matmul(h, tf.Variable(w, name="W%d" % i)) + tf.Variable(b, name="b%d" % i)
                h = h if activation == "none" else getattr(tf.nn, activation)(h)
            loss = {"mse": lambda: tf.reduce_mean(tf.square(h - target)),
                    "softmax": lambda: tf.reduce_mean(
                        tf.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=h)),
                    "sigmoid": lambda: tf.reduce_mean(
                        tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=h)),
                    "l1_l2": lambda: tf.reduce_sum(tf.abs(h - target)) +
                    0.5 * tf.reduce_sum(tf.square(h))}[loss_kind]()
            return _train(tf, loss, _OPTIMIZERS[optimizer](tf, lr), {x: x_value}, steps)
    return run, label


def _train(tf, loss, optimizer, feed, steps):
    """(the loss of each step, every variable's value after them, their names)."""
    train = optimizer.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], feed)[0] for _ in range(steps)]
        return (losses, sess.run(tf.global_variables()),
                [v.name for v in tf.global_variables()])


def make_cnn_training_program(seed):
    """(run(tf) -> (losses, variable values, variable names), label): 1-2 convolution
    layers (random size, padding, stride), each with a bias added as `conv + b`,
    `b + conv` or `tf.nn.bias_add`, an activation (relu most often) and maybe a pooling
    (tiling or overlapping windows), then a dense layer and a softmax loss, trained 1-3
    steps. The shapes the plan fuses (conv + bias + relu, relu under a max pool) come up
    often; every seed divisible by 10 is LeNet-sized (batch 50, 14x14, 16-32 channels,
    5x5), where the layer runs in the Fourier domain. Those take tanh, not relu: the
    transforms round differently from TF's sums (~1e-6 of a layer's largest value), so
    a pre-activation within that of 0 may fall on the other side of the relu's kink,
    and one such element changes the gradient visibly (seed 80 with relu: one element
    at 1.7e-8). test_conv_fourier.py checks the relu in the Fourier domain against a
    traced run instead."""
    rng = np.random.RandomState(seed)
    big = seed % 10 == 0
    if big:
        batch, side, channels = 50, 14, [16]
        layers = [dict(k=5, out=32, stride=1, padding="SAME")]
    else:
        batch, side, channels = int(rng.randint(1, 5)), int(rng.randint(4, 9)), \
            [int(rng.randint(1, 4))]
        layers = [dict(k=int(rng.randint(1, 4)), out=int(rng.randint(1, 9)),
                       stride=int(rng.choice([1, 1, 2])),
                       padding=str(rng.choice(["SAME", "VALID"])))
                  for _ in range(rng.randint(1, 3))]
    size = side
    for layer in layers:
        layer["bias"] = str(rng.choice(["conv+b", "b+conv", "bias_add"]))
        layer["act"] = "tanh" if big else str(rng.choice(["relu", "relu", "tanh", "none"]))
        layer["pool"] = "none" if big else str(rng.choice(
            ["max_tiled", "max_tiled", "max_overlap", "avg", "none"]))
        if layer["padding"] == "VALID" and size < layer["k"]:
            layer["padding"] = "SAME"               # keep every output non-empty
        size = (-(-size // layer["stride"]) if layer["padding"] == "SAME"
                else (size - layer["k"]) // layer["stride"] + 1)
        size = size if layer["pool"] == "none" else -(-size // 2)
    optimizer = "sgd" if big else str(rng.choice(sorted(_OPTIMIZERS)))
    steps = 2 if big else int(rng.randint(1, 4))
    x_value = rng.randn(batch, side, side, channels[0]).astype(np.float32)
    filters, c = [], channels[0]
    for layer in layers:
        filters.append(((rng.randn(layer["k"], layer["k"], c, layer["out"]) /
                         np.sqrt(layer["k"] * layer["k"] * c)).astype(np.float32),
                        (rng.randn(layer["out"]) * 0.1).astype(np.float32)))
        c = layer["out"]
    classes = 3
    labels = np.eye(classes, dtype=np.float32)[rng.randint(0, classes, size=batch)]
    dense_seed = int(rng.randint(1 << 30))
    label = "cnn %s %s steps=%d batch=%d side=%d" % (layers, optimizer, steps, batch, side)

    def run(tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, side, side, channels[0]])
            h = x
            for i, (layer, (f, b)) in enumerate(zip(layers, filters)):
                conv = tf.nn.conv2d(h, tf.Variable(f, name="F%d" % i),
                                    [1, layer["stride"], layer["stride"], 1],
                                    layer["padding"])
                bias = tf.Variable(b, name="B%d" % i)
                h = {"conv+b": lambda: conv + bias, "b+conv": lambda: bias + conv,
                     "bias_add": lambda: tf.nn.bias_add(conv, bias)}[layer["bias"]]()
                if layer["act"] != "none":
                    h = getattr(tf.nn, layer["act"])(h)
                if layer["pool"] == "max_tiled":
                    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
                elif layer["pool"] == "max_overlap":
                    h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
                elif layer["pool"] == "avg":
                    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
            flat_size = int(np.prod(h.shape.as_list()[1:]))
            w = np.random.RandomState(dense_seed).randn(flat_size, classes) * 0.1
            logits = tf.matmul(tf.reshape(h, [-1, flat_size]),
                               tf.Variable(w.astype(np.float32), name="W"))
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
            return _train(tf, loss, _OPTIMIZERS[optimizer](tf, 0.01 if big else 0.1),
                          {x: x_value}, steps)
    return run, label


# -- shape arithmetic on feeds of changing shapes -------------------------------------------
# Each builder takes (tf, v, other, rng): `v` the value so far, `other` a second fed value
# of rank <= 2 (broadcast against v, so its fed shape may make a run fail), and returns
# the next value. Shapes are read at run time (tf.shape, tf.size, tf.rank), so the graph
# optimizer's shape folding and its per-signature specialisation both come into play.
def _shape_elementwise(tf, v, other, rng):
    name = rng.choice(["add", "multiply", "subtract", "maximum", "squared_difference"])
    operand = other if rng.rand() < 0.5 else tf.constant(rng.randn(), dtype=v.dtype)
    return getattr(tf, name)(*((v, operand) if rng.rand() < 0.5 else (operand, v)))


def _shape_unary(tf, v, other, rng):
    return getattr(tf, rng.choice(["tanh", "square", "negative", "identity", "abs",
                                   "sigmoid"]))(v)


def _shape_identities(tf, v, other, rng):
    for _ in range(rng.randint(1, 4)):
        v = tf.identity(v)
    with tf.control_dependencies([tf.no_op()]):
        return tf.identity(v)


def _shape_scaled(tf, v, other, rng):
    scalar = v.shape.ndims == 0
    size = {"first": lambda: tf.size(v) if scalar else tf.shape(v)[0],
            "last": lambda: tf.rank(v) if scalar else tf.shape(v)[-1],
            "size": lambda: tf.size(v), "rank": lambda: tf.rank(v)}[
        rng.choice(["first", "last", "size", "rank"])]()
    return v * tf.cast(size + 1, v.dtype)


def _shape_reshaped(tf, v, other, rng):
    kind = rng.choice(["flat", "back", "leading 1"])
    if kind == "flat":
        return tf.reshape(v, [-1])
    if kind == "back":
        return tf.reshape(tf.reshape(v, [-1]), tf.shape(v))
    return tf.reshape(v, tf.concat([[1], tf.shape(v)], 0))


def _shape_reduced(tf, v, other, rng):
    name = rng.choice(["reduce_sum", "reduce_mean", "reduce_max"])
    rank = v.shape.ndims
    if not rank:
        return getattr(tf, name)(v)
    axis = None if rng.rand() < 0.3 else int(rng.randint(-rank, rank))
    return getattr(tf, name)(v, axis=axis, keepdims=bool(rng.rand() < 0.5))


def _shape_transposed(tf, v, other, rng):
    rank = v.shape.ndims
    return tf.transpose(v, list(rng.permutation(rank))) if rank and rank >= 2 else \
        tf.transpose(v)


def _shape_filled(tf, v, other, rng):
    kind = rng.choice(["ones_like", "zeros", "fill"])
    if kind == "ones_like":
        return v + tf.ones_like(v)
    if kind == "fill":
        return v * tf.fill(tf.shape(v), tf.constant(0.5, v.dtype))
    return tf.zeros(tf.shape(v), v.dtype) - v


def _shape_expanded(tf, v, other, rng):
    return tf.squeeze(tf.expand_dims(v, 0), [0])


def _shape_tiled(tf, v, other, rng):
    rank = v.shape.ndims
    return tf.tile(v, [int(rng.randint(1, 3))] + [1] * (rank - 1)) if rank else v


def _shape_cond(tf, v, other, rng):
    scale = tf.cast(tf.shape(v)[0] if v.shape.ndims else 1, v.dtype)
    return tf.cond(tf.size(v) > 3, lambda: v * scale,
                   lambda: v - tf.cast(tf.rank(v), v.dtype))


def _shape_while(tf, v, other, rng):
    n = int(rng.randint(0, 3))

    def body(i, u):
        return i + 1, u * 0.5 + tf.cast(tf.size(u), u.dtype) * 0.1
    return tf.while_loop(lambda i, u: i < n, body, [0, v])[1]


def _shape_other_summed(tf, v, other, rng):
    return v + tf.reduce_sum(tf.reshape(other, [-1]))


def _shape_broadcast_like(tf, v, other, rng):
    return v + tf.zeros_like(other) if rng.rand() < 0.5 else tf.ones_like(other) * v


def _shape_sliced(tf, v, other, rng):
    if not v.shape.ndims:
        return v
    last = tf.shape(v)[-1]
    size = tf.concat([tf.fill([tf.rank(v) - 1], -1), [tf.maximum(last - 1, 0)]], 0)
    return tf.slice(v, tf.zeros_like(tf.shape(v)), size)


def _shape_concatenated(tf, v, other, rng):
    if not v.shape.ndims:
        return tf.stack([v, v])
    return tf.concat([v, tf.identity(v)], axis=int(rng.randint(0, v.shape.ndims)))


def _shape_centred(tf, v, other, rng):
    return v - tf.reduce_mean(v)


SHAPE_OPS = [_shape_elementwise, _shape_unary, _shape_identities, _shape_scaled,
             _shape_reshaped, _shape_reduced, _shape_transposed, _shape_filled,
             _shape_expanded, _shape_tiled, _shape_cond, _shape_while, _shape_other_summed,
             _shape_broadcast_like, _shape_sliced, _shape_concatenated, _shape_centred]


def make_shape_program(seed):
    """(build(tf) -> (fetches, x, other), feeds(x, other) -> [feed_dict], label): 2-6
    shape-reading ops (above) on a placeholder of rank 1-3 with some dimensions unknown,
    fetching the result, up to two intermediate values and the gradients with respect
    to both placeholders, fed four different shapes in one session (sides 0-3; `other`
    sometimes one larger, so that broadcasting fails at run time)."""
    rng = np.random.RandomState(seed)
    dtype = str(rng.choice(["float32", "float64"]))
    rank = int(rng.randint(1, 4))
    base = [int(rng.randint(1, 4)) for _ in range(rank)]
    static = [None if rng.rand() < 0.6 else side for side in base]
    shapes = [tuple(side if known is not None else
                    int(rng.choice([1, 2, 3, side, 0 if rng.rand() < 0.1 else side]))
                    for side, known in zip(base, static)) for _ in range(4)]
    ops = [(SHAPE_OPS[rng.randint(len(SHAPE_OPS))], int(rng.randint(1 << 30)))
           for _ in range(rng.randint(2, 7))]
    label = "%s static=%s fed %s: %s" % (dtype, static, shapes,
                                          [op.__name__[len("_shape_"):] for op, _ in ops])

    def build(tf):
        x = tf.placeholder(tf.as_dtype(dtype), static, name="x")
        other = tf.placeholder(tf.as_dtype(dtype), [None] * min(rank, 2), name="other")
        v, side = x, []
        for op, op_seed in ops:
            op_rng = np.random.RandomState(op_seed)
            v = op(tf, v, other, op_rng)
            if op_rng.rand() < 0.3:
                side.append(v)
        grads = tf.gradients(tf.reduce_sum(v * v), [x, other])
        return [v] + side[:2] + [g for g in grads if g is not None], x, other

    def feeds(x, other):
        feed_rng = np.random.RandomState(seed + 7)
        out = []
        for shape in shapes:
            other_shape = tuple(side if feed_rng.rand() < 0.7 else 1
                                for side in shape[-min(rank, 2):])
            if feed_rng.rand() < 0.1:
                other_shape = tuple(side + 1 for side in other_shape)
            out.append({x: (feed_rng.randn(*shape) * 2).astype(dtype),
                        other: (feed_rng.randn(*other_shape) * 2).astype(dtype)})
        return out
    return build, feeds, label


# -- training on batches of changing sizes --------------------------------------------------
_BATCH_LOSSES = {
    "mean": lambda tf, x, y, err, w: tf.reduce_mean(tf.square(err)),
    # the batch size read at run time, as the notes' hand-written means do
    "sum / batch": lambda tf, x, y, err, w: tf.reduce_sum(tf.square(err)) / tf.cast(
        tf.shape(x)[0], tf.float32),
    "abs sum / size": lambda tf, x, y, err, w: tf.reduce_sum(tf.abs(err)) / tf.cast(
        tf.size(y), tf.float32),
    "l2 + decay": lambda tf, x, y, err, w: tf.nn.l2_loss(err) + 0.01 * tf.nn.l2_loss(w),
}


def make_batch_training_program(seed):
    """(build(tf) -> (x, y, loss, train, variables), batches, label): a linear model on
    `[None, k]` placeholders, a loss that may read the batch size at run time, trained by
    one of five optimizers on four batches of different sizes, twice over."""
    rng = np.random.RandomState(seed)
    k = int(rng.randint(1, 4))
    optimizer = str(rng.choice(["sgd", "momentum", "adam", "adagrad", "rmsprop"]))
    loss_kind = str(rng.choice(sorted(_BATCH_LOSSES)))
    sizes = [int(rng.choice([1, 2, 3, 5])) for _ in range(4)]
    batches = [(rng.randn(n, k).astype("float32"), rng.randn(n, 1).astype("float32"))
               for n in sizes]
    w0 = rng.randn(k, 1).astype("float32")
    label = "%s, loss %s, k=%d, batches of %s" % (optimizer, loss_kind, k, sizes)

    def build(tf):
        x = tf.placeholder(tf.float32, [None, k])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(w0, name="w")
        b = tf.Variable(np.zeros([1], "float32"), name="b")
        loss = _BATCH_LOSSES[loss_kind](tf, x, y, tf.matmul(x, w) + b - y, w)
        opt = _OPTIMIZERS[optimizer](tf, 0.05)
        return x, y, loss, opt.minimize(loss), [w, b]
    return build, batches, label
