"""Output shapes from input shapes, for the ops whose output shape depends on nothing
else (specialise.py). A rule returns a tuple of ints, or None when it cannot tell."""
import numpy as np

__all__ = ["output_shape"]

SAME_AS_FIRST = {
    "Identity", "Snapshot", "StopGradient", "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp",
    "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu",
    "Selu", "Softplus", "Softsign", "Sign", "Floor", "Ceil", "Round", "Reciprocal", "Cast",
    "ZerosLike", "OnesLike", "Softmax", "LogSoftmax", "BiasAdd", "TanhGrad", "SigmoidGrad",
    "ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "SoftplusGrad", "SoftsignGrad",
    "RsqrtGrad", "SqrtGrad", "ReciprocalGrad",
    "PreventGradient", "CheckNumerics"}
BROADCASTING = {
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "Maximum", "Minimum",
    "SquaredDifference", "Pow", "FloorDiv", "FloorMod", "Equal", "NotEqual", "Less",
    "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"}
REDUCTIONS = {"Sum", "Mean", "Max", "Min", "Prod", "All", "Any"}


def output_shape(op, shapes, values):
    """The shape of op's first output given its inputs' `shapes` (tuples or None) and
    constant `values` (arrays or None), or None."""
    t = op.type
    if len(op._outputs) != 1:
        return None
    if t in SAME_AS_FIRST:
        return shapes[0]
    if any(s is None for s in shapes[:1]):
        return None
    if t in BROADCASTING:
        if shapes[1] is None:
            return None
        try:
            return tuple(np.broadcast_shapes(shapes[0], shapes[1]))
        except ValueError:
            return None
    if t == "MatMul":
        a, b = shapes
        if b is None or len(a) != 2 or len(b) != 2:
            return None
        rows = a[1] if op._attrs.get("transpose_a") else a[0]
        cols = b[0] if op._attrs.get("transpose_b") else b[1]
        return (rows, cols)
    if t in REDUCTIONS:
        axes = values[1]
        if axes is None:
            return None
        rank = len(shapes[0])
        axes = {int(a) % rank for a in np.ravel(axes)} if rank else set()
        if op._attrs.get("keep_dims"):
            return tuple(1 if i in axes else d for i, d in enumerate(shapes[0]))
        return tuple(d for i, d in enumerate(shapes[0]) if i not in axes)
    if t == "Reshape":
        target = values[1]
        if target is None or np.ndim(target) != 1:
            return None
        target = [int(d) for d in target]
        if target.count(-1) == 1:
            known = int(np.prod([d for d in target if d != -1]))
            if known == 0:
                return None
            target[target.index(-1)] = int(np.prod(shapes[0])) // known
        if int(np.prod(target)) != int(np.prod(shapes[0])):
            return None
        return tuple(target)
    if t in ("Shape",):
        return (len(shapes[0]),)
    if t in ("Size", "Rank"):
        return ()
    return None
