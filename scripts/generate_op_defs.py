"""Writes tfteach/framework/op_defs.pbtxt: TensorFlow's OpDefs for the op types tfteach
can write into a GraphDef (dev-time; TensorFlow is not a runtime dependency).

An OpDef is a fact of TensorFlow's op registry (input_arg, output_arg, attr with type,
default and allowed values); meta graphs carry them in `meta_info_def.stripped_op_list`.
The tensorboard package ships the OpDef message but not the registry, so this script
reads the registry of the installed TensorFlow once and keeps the OpDefs tfteach needs,
without their documentation (as TF's stripped_op_list), one text-format OpDef a line.

    python scripts/generate_op_defs.py        # needs tensorflow installed
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

# Op types tfteach writes besides its registered ones: while-loop frames and their
# gradients (framework/loop_frames.py), TF's reference-typed twins, the lowered fused ops,
# the V2 ops of tf.data and parsing that tfteach writes or reads (data/graph_export.py).
EXTRA = ["Enter", "RefEnter", "Exit", "RefExit", "Merge", "RefMerge", "Switch", "RefSwitch",
         "NextIteration", "RefNextIteration", "LoopCond", "StackV2", "StackPushV2",
         "StackPopV2", "AddV2", "Sub", "Mul", "GreaterEqual", "ZerosLike", "Const",
         "RefIdentity", "FixedLengthRecordDatasetV2", "ParseExampleV2"]
OUT = os.path.join(os.path.dirname(__file__), "..", "tfteach", "framework", "op_defs.pbtxt")


def _strip_docs(op_def):
    op_def.ClearField("summary")
    op_def.ClearField("description")
    for arg in list(op_def.input_arg) + list(op_def.output_arg):
        arg.ClearField("description")
    for attr in op_def.attr:
        attr.ClearField("description")


def main():
    from google.protobuf import text_format
    from tensorflow.python.framework import op_def_registry

    import importlib
    import pkgutil

    import tfteach
    for module in pkgutil.walk_packages(tfteach.__path__, "tfteach."):
        if ".kernel." in module.name + "." or module.name.startswith("tfteach.notebook"):
            continue                      # the Jupyter side registers no ops
        importlib.import_module(module.name)   # op types `import tfteach` does not load
    from tfteach.framework.registry import registered_op_types
    from tfteach.io.tf_protos import OpList
    ops = OpList()
    for name in sorted(set(registered_op_types()) | set(EXTRA)):
        op_def = op_def_registry.get(name)
        if op_def is None:                # tfteach's own op types (While, LoopVar, ...)
            continue
        entry = ops.op.add()
        entry.ParseFromString(op_def.SerializeToString())
        _strip_docs(entry)
    import tensorflow as tf
    header = ("# TensorFlow's OpDefs (from tensorflow %s's op registry, docs stripped) for "
              "the op types\n# tfteach writes, one text-format OpDef per line. Generated "
              "by scripts/generate_op_defs.py; do not edit.\n" % tf.__version__)
    with open(OUT, "w") as f:
        f.write(header)
        for op in ops.op:
            f.write(text_format.MessageToString(op, as_one_line=True) + "\n")
    print("wrote %d OpDefs to %s" % (len(ops.op), os.path.normpath(OUT)))


if __name__ == "__main__":
    main()
