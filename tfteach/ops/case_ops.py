"""`tf.case`: the fn of the first true predicate, built as a chain of `tf.cond`s.

`case([(p0, f0), (p1, f1)], default=g)` is `cond(p0, f0, lambda: cond(p1, f1, g))`, so
only the chosen fn's ops run. Without a default the last pair's fn is the default, and
an Assert checks at run time that its predicate holds; `exclusive=True` adds an Assert
that at most one predicate is true. Messages and structure follow TF 1.x.
"""
from tfteach.framework import dtypes
from tfteach.framework.graph_functions import name_scope
from tfteach.framework.tensor import Tensor
from tfteach.ops import array_ops, math_ops, reduction_ops
from tfteach.ops.cond_ops import cond
from tfteach.ops.constant_op import constant
from tfteach.ops.logging_ops import Assert
from tfteach.ops.op_builder import graph_of

__all__ = ["case"]


def _check_pairs(pred_fn_pairs, exclusive, name):
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        # TF sorts an unordered dict by predicate name (and warns unless exclusive).
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError("pred must be a Tensor, got: %s" % pred)
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
    return [p for p, _ in pred_fn_pairs], [f for _, f in pred_fn_pairs]


def _assert_at_most_n_true(predicates, n, msg):
    stacked = array_ops.stack(predicates, name="preds_c")
    num_true = reduction_ops.reduce_sum(math_ops.cast(stacked, dtypes.int32),
                                   name="num_true_conds")
    condition = math_ops.less_equal(num_true, constant(n, name="n_true_conds"))
    names = ", ".join(p.name for p in predicates)
    return Assert(condition, ["%s: more than %d conditions (%s) evaluated as True:"
                              % (msg, n, names), stacked], summarize=len(predicates))


def _default_from_last(predicates, fns):
    last_pred, last_fn = predicates[-1], fns[-1]

    def default_action():
        message = ("Input error: None of conditions evaluated as True:",
                   array_ops.stack(predicates, name="preds_c"))
        with graph_of(predicates).control_dependencies([Assert(last_pred, message)]):
            return last_fn()

    return default_action, predicates[:-1], fns[:-1]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the fn paired with the first true predicate, else of `default`."""
    predicates, fns = _check_pairs(pred_fn_pairs, exclusive, name)
    if not predicates:
        if default is None:
            raise ValueError("No predicates and no default.")
        return default()
    with name_scope(name, "case", predicates):
        if default is None:
            default, predicates, fns = _default_from_last(predicates, fns)
        chosen = default
        for pred, fn in reversed(list(zip(predicates, fns))):
            chosen = _cond_of(pred, fn, chosen, strict)
        if not exclusive or not predicates:
            return chosen()
        gate = _assert_at_most_n_true(predicates, 1, "Input error: exclusive=True")
        with graph_of(predicates).control_dependencies([gate]):
            return chosen()


def _cond_of(pred, true_fn, false_fn, strict):
    return lambda: cond(pred, true_fn, false_fn, strict=strict)
