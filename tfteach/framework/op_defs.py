"""TensorFlow's OpDefs for the op types tfteach writes, read from op_defs.pbtxt.

A meta graph's `meta_info_def.stripped_op_list` holds the OpDef of every op type its
graph uses (inputs, outputs, attrs with their types, defaults and allowed values), as
TensorFlow's `export_meta_graph` writes it. OpDefs are facts of TensorFlow's op
registry; tfteach keeps a copy of the ones it needs in `op_defs.pbtxt`, generated once
from an installed TensorFlow by `scripts/generate_op_defs.py` (TensorFlow is not needed
at run time). tfteach's own op types (While, LoopVar, ...) are never written, so never
looked up.
"""
import functools
import os

__all__ = ["op_def", "stripped_op_list"]

_FILE = os.path.join(os.path.dirname(__file__), "op_defs.pbtxt")


@functools.lru_cache(maxsize=1)
def _table():
    """{op type: OpDef}: the file holds one text-format OpDef per line."""
    from google.protobuf import text_format
    from tfteach.io.tf_protos import OpList
    ops = OpList()
    with open(_FILE, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                text_format.Parse(line, ops.op.add())
    return {op.name: op for op in ops.op}


def op_def(op_type):
    """TensorFlow's OpDef of `op_type` (without docs), or None if the table lacks it."""
    return _table().get(op_type)


def stripped_op_list(op_list, op_types):
    """Fills `op_list` (an OpList) with the OpDefs of `op_types`, sorted by name; a type
    the table lacks gets its name only."""
    for op_type in sorted(set(op_types)):
        entry = op_list.op.add()
        found = op_def(op_type)
        if found is not None:
            entry.CopyFrom(found)
        else:
            entry.name = op_type
