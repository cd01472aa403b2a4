"""A helper for the tests that read what tf.logging wrote (estimators, session hooks)."""
import contextlib
import logging

import tfteach as tf


@contextlib.contextmanager
def log_lines():
    """The tf.logging lines written while the block runs (at INFO)."""
    lines = []

    class Collect(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())
    logger = tf.logging.get_logger()
    handler, level = Collect(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
