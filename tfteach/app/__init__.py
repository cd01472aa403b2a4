"""`tf.app`: `tf.app.flags` and `tf.app.run`, as the notes' scripts end.

`tf.app.run(main)` parses the command line into `tf.app.flags.FLAGS`, calls
`main(argv)` with what remains, and exits with its return value, as TF 1.15 (absl)
does. In a notebook (an IPython kernel) it differs on purpose, since Jupyter starts the
kernel with its own arguments (`-f /path/kernel-....json`): flags it does not know are
left in argv instead of failing, and it returns main's value instead of raising
SystemExit, so the notes' scripts run unchanged in a cell (docs/saving.md).
"""
import sys as _sys

from tfteach.app import flags
from tfteach.app.flags import in_notebook as _in_notebook

__all__ = ["flags", "run"]


def run(main=None, argv=None):
    """Parses flags, runs `main(argv)` (the caller's `main` if none is given), exits."""
    argv = list(_sys.argv if argv is None else argv)
    notebook = _in_notebook()
    try:
        remaining = flags.FLAGS(argv, known_only=notebook)
    except flags.Error as e:
        if notebook:
            raise
        print("FATAL Flags parsing error: %s" % e, file=_sys.stderr)
        print("Pass --helpshort or --helpfull to see help on flags.", file=_sys.stderr)
        _sys.exit(1)
    if main is None:
        main = _sys.modules["__main__"].main
    result = main(remaining)
    if notebook:
        return result
    _sys.exit(result)
