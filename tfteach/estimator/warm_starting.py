"""`warm_start_from`: a new model's variables initialised from another model's checkpoint.

As TF 1.15: `warm_start_from` is a checkpoint (a folder or a prefix) or a
`tf.estimator.WarmStartSettings(ckpt_to_initialize_from, vars_to_warm_start=".*")`; when
training starts *without* a checkpoint in model_dir, every trainable variable whose name
matches `vars_to_warm_start` (a regular expression, or a list of names) takes its value
from the checkpoint (through tf.train.init_from_checkpoint). Not built: var_name_to_vocab_info
and var_name_to_prev_var_name renames.
"""
import collections
import re

from tfteach import logging

__all__ = ["WarmStartSettings", "warm_start"]


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """Which checkpoint, and which variables, to warm-start from."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        if var_name_to_vocab_info or var_name_to_prev_var_name:
            raise NotImplementedError("tfteach warm-starts variables under their own names "
                                      "only (no vocab_info, no renames).")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start, {}, {})


def settings_of(warm_start_from):
    if warm_start_from is None or isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if isinstance(warm_start_from, str):
        return WarmStartSettings(warm_start_from)
    raise ValueError("warm_start_from must be a string or a WarmStartSettings, instead got "
                     "{}".format(type(warm_start_from)))


def warm_start(settings):
    """Sets the initializers of the matching trainable variables to read the checkpoint."""
    import tfteach as tf
    logging.info("Warm-starting with WarmStartSettings: %s", settings)
    logging.info("Warm-starting from: %s", settings.ckpt_to_initialize_from)
    in_checkpoint = dict(tf.train.list_variables(settings.ckpt_to_initialize_from))
    wanted = settings.vars_to_warm_start
    if isinstance(wanted, str):
        pattern = re.compile(wanted)
        chosen = [v for v in tf.trainable_variables() if pattern.match(v.op.name)]
    else:
        chosen = [v for v in tf.trainable_variables() if v.op.name in set(wanted or [])]
    assignment = {v.op.name: v for v in chosen if v.op.name in in_checkpoint}
    if assignment:
        tf.train.init_from_checkpoint(settings.ckpt_to_initialize_from, assignment)
    logging.info("Warm-started %d variables.", len(assignment))
