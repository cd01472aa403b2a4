"""TF1's control-flow API in one namespace, as `tensorflow/python/ops/control_flow_ops`.

Each idea lives in its own module; this one only gathers them for `import tfteach as tf`:
  - dependency_ops: `tf.no_op`, `tf.group`, `tf.tuple` (ordering without data);
  - cond_ops: `tf.cond` (Switch / Merge: only the taken branch runs);
  - case_ops: `tf.case` (a chain of conds);
  - while_ops: `tf.while_loop` (a loop op that re-runs the body's ops);
  - logging_ops: `tf.Print`, `tf.Assert` (report from inside a running graph).
See docs/control_flow.md.
"""
from tfteach.ops.case_ops import case
from tfteach.ops.cond_ops import cond
from tfteach.ops.dependency_ops import group, no_op, tuple, with_dependencies  # noqa: A004
from tfteach.ops.logging_ops import Assert, Print
from tfteach.ops.while_ops import while_loop

__all__ = ["no_op", "group", "tuple", "cond", "case", "while_loop", "Print", "Assert"]

# `with_dependencies` is importable from here as in TF, but not a top-level `tf.` name.
_ = with_dependencies
