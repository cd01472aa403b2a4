"""Writes an evaluation's results as scalar summaries into `model_dir/eval` (TF 1.15's
`_write_dict_to_summary`): one event per metric that is a number, at the global step."""
import numpy as np

from tfteach import logging

__all__ = ["write_dict_to_summary"]


def write_dict_to_summary(output_dir, dictionary, current_global_step):
    from tfteach.io.tf_protos import Summary
    from tfteach.summary.writer import FileWriterCache
    writer = FileWriterCache.get(output_dir)
    summary = Summary()
    for key, value in dictionary.items():
        if value is None or key == "global_step":
            continue
        value = np.asarray(value)
        if value.ndim == 0 and value.dtype.kind in "fiub":
            summary.value.add(tag=key, simple_value=float(value))
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, "
                            "np.int64, np.int32 or int.", key)
    writer.add_summary(summary, current_global_step)
    writer.flush()
