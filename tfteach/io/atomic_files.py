"""Writing a file so that a reader sees the old one or the new one, never half of either.

TensorFlow writes its checkpoint files and the `checkpoint` state file to a temporary
file beside the target and renames it into place (`BundleWriter`'s `.tempstate*`,
`atomic_write_string_to_file`'s `.tmp*`): a process killed mid-save leaves the previous
checkpoint loadable. The rename is atomic on POSIX file systems.
"""
import os
import tempfile

__all__ = ["atomic_write"]


def atomic_write(path, data, temp_marker=".tmp"):
    """Writes `data` (bytes) to a temporary file named `<path><temp_marker>...` beside
    `path`, flushed to disk, then renames it to `path`."""
    directory = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(prefix=os.path.basename(path) + temp_marker, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
