"""What `log_device_placement=True` prints, on the streams TensorFlow 1.15 uses.

TF 1.15 writes each message twice: with C's `printf` to standard output (the text a
program's stdout shows) and with `LOG(INFO)` to standard error, behind the log prefix
"<date> <time>: I <source file>:<line>] ". So the two streams are TensorFlow's, a script
whose stdout is redirected gets exactly TF's stdout, and a notebook shows both (Jupyter
shows stderr too, where TF's C++ log never reached it).

- At Session creation (`direct_session.cc`): stdout gets "Device mapping:\\n" and one
  line per device with a physical description ("Device mapping: no known devices.\\n"
  when none has one, as on a CPU-only machine); the log gets "Device mapping:\\n" and
  the same lines, ending with an empty line (the lines end in a newline, and so does a
  log message).
- When an op is placed (`placer.cc`): "NAME: (TYPE): DEVICE" on both.
"""
import datetime
import sys

__all__ = ["log_device_mapping", "log_placements"]

# TF 1.15's sources of these messages, as its log lines name them.
_DIRECT_SESSION = "tensorflow/core/common_runtime/direct_session.cc:341"
_PLACER = "tensorflow/core/common_runtime/placer.cc:54"


def _log_line(source, message):
    """One LOG(INFO) message in TF's format (glog's: local time to the microsecond)."""
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")
    return "%s: I %s] %s\n" % (now, source, message)


def log_device_mapping(lines):
    """The Session's "Device mapping" message (lines: "NAME -> DESCRIPTION")."""
    mapping = "".join(line + "\n" for line in lines)
    sys.stdout.write("Device mapping:\n%s" % mapping if mapping
                     else "Device mapping: no known devices.\n")
    sys.stdout.flush()
    sys.stderr.write(_log_line(_DIRECT_SESSION, "Device mapping:\n" + mapping))
    sys.stderr.flush()


def log_placements(assignments):
    """One line per (op, device), in the order the placer assigned them."""
    texts = ["%s: (%s): %s" % (op.name, op.type, device.name) for op, device in assignments]
    if not texts:
        return
    sys.stdout.write("".join(text + "\n" for text in texts))
    sys.stdout.flush()
    sys.stderr.write("".join(_log_line(_PLACER, text) for text in texts))
    sys.stderr.flush()
