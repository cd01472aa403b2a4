"""`tf.train.QueueRunner`, `add_queue_runner`, `start_queue_runners` (TF 1.15's
queue_runner_impl.py).

A QueueRunner holds a queue's enqueue ops; `create_threads(sess, coord)` starts one
thread per enqueue op, each running its op in `sess` again and again, plus (with a
coordinator) one that closes the queue with `cancel_pending_enqueues=True` once a stop
is requested. A thread ends when the queue is closed (OutOfRangeError, e.g. the input
producer ran out of epochs: the last thread closes the queue, so dequeues drain it and
then raise OutOfRangeError), when the coordinator stops, or when an op fails (the
error goes to the coordinator, and `coord.join()` raises it).

tfteach differences, for notebooks (docs/queues.md):
- the threads are always daemon threads, named `QueueRunnerThread-<queue>-<op>` as in
  TF, and registered with the Session (runtime/session_resources.py): closing the
  Session cancels the ops they wait in and joins them, so none outlives its session;
- a thread whose Session was closed ends quietly (TF reports the CancelledError or the
  "closed Session" RuntimeError to the coordinator, and `coord.join()` raises it).
"""
import threading
import weakref

from tfteach import logging
from tfteach.framework import errors
from tfteach.framework import graph as graph_lib

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

# How often the close-on-stop thread checks that its session is still open.
_SESSION_POLL_SECS = 0.05


def _session_closed(sess):
    return getattr(sess, "_closed", False)


class QueueRunner:
    """`tf.train.QueueRunner(queue, enqueue_ops, close_op=None, cancel_op=None,
    queue_closed_exception_types=None)`."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None,
                 import_scope=None):
        if queue_runner_def is not None:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = (cancel_op if cancel_op is not None
                           else queue.close(cancel_pending_enqueues=True))
        self._queue_closed_exception_types = self._check_types(queue_closed_exception_types)
        self._init_state()

    @staticmethod
    def _check_types(types):
        if types is None:
            return (errors.OutOfRangeError,)
        if (not isinstance(types, tuple) or not types or
                not all(isinstance(t, type) and issubclass(t, errors.OpError) for t in types)):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple "
                            "of tf.error types, but saw: %s" % (types,))
        return types

    def _init_state(self):
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def _init_from_proto(self, queue_runner_def, import_scope):
        from tfteach.train import queue_runner_def as qr_def
        graph = graph_lib.get_default_graph()
        parts = qr_def.from_proto(queue_runner_def, graph, import_scope)
        self._queue, self._enqueue_ops, self._close_op, self._cancel_op, codes = parts
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(c) for c in codes) or (
                errors.OutOfRangeError,)
        self._init_state()

    # -- properties ------------------------------------------------------------------------
    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions the threads raised without a coordinator to report them to."""
        return self._exceptions_raised

    @property
    def name(self):
        """The name of the queue's op (of the queue handle's op, for a queue object)."""
        return self._queue.name

    # -- threads ---------------------------------------------------------------------------
    def _run(self, sess, enqueue_op, coord=None):
        """One thread: run `enqueue_op` until the queue closes or a stop is requested."""
        decremented = False
        try:
            while True:
                if coord is not None and coord.should_stop():
                    break
                try:
                    sess.run(enqueue_op)
                except self._queue_closed_exception_types:
                    # The queue was closed: the last thread of this session closes it
                    # for the consumers too, so they drain it and see OutOfRangeError.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - TF ignores it too
                                logging.vlog(1, "Ignored exception: %s", str(e))
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator
            if _session_closed(sess):
                return            # the session closed under the thread: a clean end
            if coord is not None:
                coord.request_stop(e)
            else:
                logging.error("Exception in QueueRunner: %s", str(e))
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    if sess in self._runs_per_session:
                        self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        """Closes the queue, cancelling pending enqueues, when the coordinator stops (a
        thread blocked in an enqueue then ends); ends with its session."""
        while not coord.wait_for_stop(_SESSION_POLL_SECS):
            if _session_closed(sess):
                return
        if _session_closed(sess):
            return
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - TF ignores it too
            logging.vlog(1, "Ignored exception: %s", str(e))

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The threads that run the enqueue ops in `sess` (none if this runner already
        runs there); registered with `coord` and with the session. `daemon` is accepted
        for TF's signature: tfteach's runner threads are always daemon threads."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name),
                                    daemon=True)
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                name="QueueRunnerThread-%s-close_on_stop" % self.name, daemon=True))
        resources = getattr(sess, "resources", None)
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if resources is not None:
                resources.add_thread(t)
            if start:
                t.start()
        return threads

    # -- meta graphs ------------------------------------------------------------------------
    def to_proto(self, export_scope=None):
        """A QueueRunnerDef (queue_runner_def.py)."""
        from tfteach.train import queue_runner_def as qr_def
        return qr_def.to_proto(self, export_scope)

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def add_queue_runner(qr, collection=graph_lib.GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph's QUEUE_RUNNERS collection (start_queue_runners starts it)."""
    graph_lib.get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=graph_lib.GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in the session graph's collection;
    returns them (join them with `coord.join(threads)`)."""
    from tfteach.runtime import session as session_lib
    if sess is None:
        sess = session_lib.get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is "
                             "registered. Use `with sess.as_default()` or pass an "
                             "explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, session_lib.BaseSession):
        raise TypeError("sess must be a `tf.Session` object. Given class: {}"
                        .format(sess.__class__))
    runners = sess.graph.get_collection(collection)
    if not runners:
        logging.warning("`tf.train.start_queue_runners()` was called when no queue "
                        "runners were defined. You can safely remove the call to this "
                        "deprecated function.")
    threads = []
    with sess.graph.as_default():
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
