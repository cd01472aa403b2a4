"""`tf.logging`: TF 1.15's logging functions on Python's `logging` module.

Messages go to the logger named "tensorflow" and print as TF 1.15 prints them,
`INFO:tensorflow:Restoring parameters from ...`, to stdout in an interactive session
(a notebook) and to stderr otherwise. The default verbosity is WARN, as in TF 1.15:
`tf.logging.set_verbosity(tf.logging.INFO)` shows the INFO lines the notes print.
"""
import logging as _logging
import sys as _sys

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "debug", "info", "warn", "warning",
           "error", "fatal", "log", "log_if", "log_every_n", "log_first_n", "vlog",
           "set_verbosity", "get_verbosity", "flush", "get_logger", "TaskLevelStatusMessage"]

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_logger = None


class _StreamOfTheMoment(_logging.StreamHandler):
    """Writes to the sys.stdout/sys.stderr of the moment, so a notebook that swaps them
    per cell (ipykernel does) still captures the line."""

    def __init__(self, interactive):
        super().__init__()
        self._interactive = interactive

    @property
    def stream(self):
        return _sys.stdout if self._interactive else _sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def get_logger():
    """The "tensorflow" logger, set up once (TF's `tf.get_logger()`)."""
    global _logger
    if _logger is None:
        logger = _logging.getLogger("tensorflow")
        if not logger.handlers:
            interactive = bool(getattr(_sys, "ps1", None) or _sys.flags.interactive
                               or "ipykernel" in _sys.modules)
            handler = _StreamOfTheMoment(interactive)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
            logger.addHandler(handler)
            logger.propagate = False
        if logger.level == _logging.NOTSET:
            logger.setLevel(WARN)
        _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


_counts = {}


def _caller_key():
    frame = _sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level, msg, n, *args):
    """Logs on the 1st, (n+1)th, (2n+1)th ... call from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    log_if(level, msg, count % n == 0, *args)


def log_first_n(level, msg, n, *args):
    """Logs only on the first n calls from the same line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    log_if(level, msg, count < n, *args)


def get_verbosity():
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    get_logger().setLevel(v)


def flush():
    for handler in get_logger().handlers:
        handler.flush()


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    error(msg)
