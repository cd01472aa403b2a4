"""Names the notes use that TensorFlow 1.x no longer had: TF's AttributeError plus a hint.

TF 1.0 renamed `tf.mul`/`tf.sub`/`tf.neg` and friends; TF 1.15 raises AttributeError
for them, and so does tfteach — with one line telling the student the new name.
"""

RENAMED_IN_TF_1_0 = {
    "mul": "multiply", "sub": "subtract", "neg": "negative",
    "select": "where", "pack": "stack", "unpack": "unstack",
    "initialize_local_variables": "local_variables_initializer",
    "batch_matmul": "matmul", "complex_abs": "abs",
    "scalar_summary": "summary.scalar", "histogram_summary": "summary.histogram",
    "merge_all_summaries": "summary.merge_all", "SummaryWriter": "summary.FileWriter",
}


def removed_name_error(module, name):
    message = "module '%s' has no attribute '%s'" % (
        "tensorflow" if module == "tfteach" else module, name)
    new = RENAMED_IN_TF_1_0.get(name)
    if new is not None:
        message += ("\nHint: tf.%s was renamed tf.%s in TensorFlow 1.0; the notes use the "
                    "old name." % (name, new))
    return AttributeError(message)
