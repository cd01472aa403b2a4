"""`tf.summary.FileWriter` and `FileWriterCache`: Event protobufs appended to an event
file in TensorBoard's format (io/records.py framing), named as TensorFlow names it:
`events.out.tfevents.<unix time>.<hostname>[suffix]`.

The first record is `file_version: "brain.Event:2"`; then one Event per add_summary /
add_graph / add_meta_graph / add_run_metadata / add_session_log, each with its wall time
and step. Events are buffered and written at `max_queue` events, after `flush_secs`, on
`flush()` and `close()`; `reopen()` starts a new file. Writes happen in the caller's
thread (TensorFlow uses a background thread; the file contents are the same).
"""
import os
import socket
import threading
import time
import warnings

from tfteach.io.records import RecordWriter
from tfteach.io.tf_protos import Event, Summary

__all__ = ["FileWriter", "FileWriterCache", "run_metadata_proto"]


class FileWriter:
    """Writes summaries, graphs and run metadata for TensorBoard (TF 1.15's signature)."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        self._logdir = str(logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._pending = []
        self._writer = None
        self._closed = True
        self._session_run_tags = set()
        self._seen_summary_tags = set()
        self._lock = threading.Lock()
        self.reopen()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
        if graph is not None and hasattr(graph, "get_operations"):
            # TF also writes the meta graph (collections) when given a Graph.
            from tfteach.framework.meta_graph import export_meta_graph
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")       # unserializable collections
                meta = export_meta_graph(graph=graph,
                                         graph_def=self._display_graph_def(graph))
            self.add_meta_graph(meta)

    # -- the file ---------------------------------------------------------------------------
    def get_logdir(self):
        return self._logdir

    def reopen(self):
        """Opens a new event file after close() (no effect while open)."""
        if not self._closed:
            return
        os.makedirs(self._logdir, exist_ok=True)
        base = os.path.join(self._logdir, "events.out.tfevents.%010d.%s" % (
            int(time.time()), socket.gethostname()))
        path, n = base + self._suffix, 0
        while os.path.exists(path):       # two writers in one second: never share a file
            n += 1
            path = "%s.%d%s" % (base, n, self._suffix)
        self._path = path
        self._writer = RecordWriter(path)
        self._closed = False
        self._last_flush = time.time()
        self._writer.write(Event(wall_time=time.time(),
                                 file_version="brain.Event:2").SerializeToString())
        self._writer.flush()

    def _warn_if_closed(self):
        # TF 1.15's FileWriter warns, then drops the event (its queue is closed).
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a "
                          "noop unless the FileWriter is explicitly reopened.")

    def add_event(self, event):
        """Queues one Event (written at max_queue events, flush_secs, flush or close)."""
        self._warn_if_closed()
        with self._lock:
            if self._closed:
                return
            self._pending.append(event.SerializeToString())
            if len(self._pending) >= self._max_queue or \
                    time.time() - self._last_flush >= self._flush_secs:
                self._write_pending()

    def _write_pending(self):
        for data in self._pending:
            self._writer.write(data)
        self._pending = []
        self._writer.flush()
        self._last_flush = time.time()

    def flush(self):
        self._warn_if_closed()
        with self._lock:
            if not self._closed:
                self._write_pending()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._write_pending()
            self._writer.close()
            self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- what goes in it ----------------------------------------------------------------------
    def _add(self, global_step=None, **fields):
        event = Event(wall_time=time.time(), **fields)
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Adds a Summary (a proto, or the serialized bytes a summary op returns). A tag's
        metadata is written with its first value only, as TensorFlow does."""
        if isinstance(summary, (bytes, bytearray)) or hasattr(summary, "dtype"):
            summary = Summary.FromString(bytes(summary.item() if hasattr(summary, "item")
                                               else summary))
        elif not isinstance(summary, Summary):
            summary = Summary.FromString(summary.SerializeToString())
        else:
            copy = Summary()
            copy.CopyFrom(summary)
            summary = copy
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self._add(global_step, summary=summary)

    def _display_graph_def(self, graph):
        if graph is None:
            return None
        from tfteach.framework.graph_def import graph_to_graph_def
        return graph_to_graph_def(graph, add_shapes=True, for_display=True)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds the graph TensorBoard draws (a tf.Graph, or a GraphDef as TF1 allowed)."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if graph is not None and hasattr(graph, "get_operations"):
            graph_def = self._display_graph_def(graph)
        elif graph is not None:
            warnings.warn("When passing a `Graph` object, please use the `graph` named "
                          "argument instead of `graph_def`.")
            graph_def = graph
        if graph_def is None:
            raise TypeError("The passed graph must be an instance of `Graph` or the "
                            "deprecated `GraphDef`")
        self._add(global_step, graph_def=graph_def.SerializeToString())

    def add_meta_graph(self, meta_graph_def, global_step=None):
        self._add(global_step, meta_graph_def=meta_graph_def.SerializeToString())

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds a run's step stats (RunMetadata from a FULL_TRACE run) under `tag`."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags.add(tag)
        event = Event(wall_time=time.time())
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = \
            run_metadata_proto(run_metadata).SerializeToString()
        if global_step is not None:
            event.step = int(global_step)
        self.add_event(event)

    def add_session_log(self, session_log, global_step=None):
        self._add(global_step, session_log=session_log)


def run_metadata_proto(run_metadata):
    """TensorFlow's RunMetadata protobuf for tfteach's RunMetadata (its step stats)."""
    from tfteach.io.tf_protos import RunMetadataProto
    if isinstance(run_metadata, RunMetadataProto):
        return run_metadata
    return run_metadata.to_proto()


class FileWriterCache:
    """One FileWriter per logdir, shared (as `tf.summary.FileWriterCache`)."""
    _cache = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir):
        from tfteach.framework import graph as graph_lib
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(
                    logdir, graph=graph_lib.get_default_graph())
            return FileWriterCache._cache[logdir]

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
