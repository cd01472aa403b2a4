"""The readers a Session keeps (TF's ReaderBase and its four kinds of file).

A reader turns a queue of filenames into records: `read(queue)` takes the next record of
the current file, and when the file is done dequeues the next filename (blocking, as a
dequeue does; a closed, empty filename queue ends the reading with its OutOfRangeError).
Like a queue, a reader is a resource of one Session, created by the first run of its op.

Keys are TF's:
- TFRecordReader: "<file>:<byte offset of the record>" (records of io/tfrecord.py);
- TextLineReader: "<file>:<line number>" (from 1, header lines counted);
- FixedLengthRecordReader: "<file>:<record index>" (from 0);
- WholeFileReader: "<file>".
One reader is used by one thread at a time (TF holds the reader's mutex for a read,
including the wait for a filename).
"""
import threading

from tfteach.framework.errors import NotFoundError

__all__ = ["TFRecordFileReader", "TextLineFileReader", "WholeFileFileReader",
           "FixedLengthFileReader"]


def _text(value):
    if hasattr(value, "item"):          # a 0-d array of the filename queue
        value = value.item()
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


class _Reader:
    """Work = one file. Subclasses open it (`_start`) and give its records (`_next`
    returns (key, value) or None at its end)."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self.reset()

    def reset(self):
        self._work = None              # the current file's name (bytes), or None
        self.records_produced = 0
        self.work_units_completed = 0
        self._state = None

    def cancel(self):
        """The Session closed (a reader itself never waits: its queue does)."""

    def read_up_to(self, queue, num_records):
        """Up to `num_records` (key, value) pairs: fewer when the current file ends
        first (the next call starts the next file), as TF's ReaderReadUpTo. A new file
        is taken from `queue` when needed; its errors (a closed, empty queue) are raised."""
        out = []
        with self._lock:
            while len(out) < num_records:
                if self._work is None:
                    self._work = queue.dequeue_many(1)[0][0]
                    self._state = self._start(_text(self._work))
                record = self._next(_text(self._work))
                if record is None:
                    self._finish()
                    if out:
                        return out       # TF's ReadUpTo stops at the end of a file
                    continue
                self.records_produced += 1
                out.append(record)
        return out

    def _finish(self):
        self._close_state()
        self._work = None
        self._state = None
        self.work_units_completed += 1

    def _close_state(self):
        close = getattr(self._state, "close", None)
        if close is not None:
            close()


def _open_binary(path):
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise NotFoundError(None, None, "%s; No such file or directory" % path) from None


class TFRecordFileReader(_Reader):
    def __init__(self, name, compression_type=""):
        self.compression_type = compression_type
        super().__init__(name)

    def _start(self, path):
        from tfteach.io.tfrecord import RecordFileReader
        import os
        if not os.path.exists(path):
            raise NotFoundError(None, None, "%s; No such file or directory" % path)
        return RecordFileReader(path, self.compression_type)

    def _next(self, path):
        offset = self._state.offset
        record = self._state.read()      # DataLossError for a corrupt record
        if record is None:
            return None
        return ("%s:%d" % (path, offset)).encode(), record


class TextLineFileReader(_Reader):
    def __init__(self, name, skip_header_lines=0):
        self.skip_header_lines = skip_header_lines
        super().__init__(name)

    def _start(self, path):
        state = {"file": _open_binary(path), "line": 0}
        for _ in range(self.skip_header_lines):
            if not state["file"].readline():
                break
            state["line"] += 1
        return state

    def _next(self, path):
        line = self._state["file"].readline()
        if not line:
            return None
        self._state["line"] += 1
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        return ("%s:%d" % (path, self._state["line"])).encode(), line

    def _close_state(self):
        if self._state:
            self._state["file"].close()


class WholeFileFileReader(_Reader):
    def _start(self, path):
        with _open_binary(path) as f:
            return {"data": f.read()}

    def _next(self, path):
        if self._state["data"] is None:
            return None
        data, self._state["data"] = self._state["data"], None
        return path.encode(), data


class FixedLengthFileReader(_Reader):
    def __init__(self, name, header_bytes, record_bytes, footer_bytes, hop_bytes):
        self.header_bytes = header_bytes
        self.record_bytes = record_bytes
        self.footer_bytes = footer_bytes
        self.hop_bytes = hop_bytes
        super().__init__(name)

    def _start(self, path):
        with _open_binary(path) as f:
            data = f.read()
        body = data[self.header_bytes:len(data) - self.footer_bytes
                    if self.footer_bytes else len(data)]
        return {"body": body, "index": 0}

    def _next(self, path):
        state = self._state
        step = self.hop_bytes or self.record_bytes
        start = state["index"] * step
        if start + self.record_bytes > len(state["body"]):
            return None      # a partial record at the end is dropped, as in TF
        key = ("%s:%d" % (path, state["index"])).encode()
        state["index"] += 1
        return key, state["body"][start:start + self.record_bytes]
