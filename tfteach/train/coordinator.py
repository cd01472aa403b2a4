"""`tf.train.Coordinator` and `tf.train.LooperThread` (TF 1.15's coordinator.py).

A Coordinator is a stop flag shared by threads plus the first exception one of them
reported: each thread loops `while not coord.should_stop()`, any of them may call
`request_stop(ex)`, and `join(threads)` waits for them and re-raises that exception in
the main thread. `OutOfRangeError` (the end of the input) is a clean stop, not an error.
"""
import contextlib
import sys
import threading
import time

from tfteach import logging
from tfteach.framework import errors

__all__ = ["Coordinator", "LooperThread"]


class Coordinator:
    """`tf.train.Coordinator(clean_stop_exception_types=None)`."""

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        exception = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(exception, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Asks every thread to stop; `ex` (an exception being handled, or an exc_info
        tuple), if it is the first reported, is re-raised by `join()`."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                # join() already returned: the exception would go unseen; raise it here.
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise ex
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    logging.info("Error reported to Coordinator: %s", ex[1])
                    self._exc_info_to_raise = ex
                else:
                    logging.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                    info = sys.exc_info()
                    # TF asks for the exception being handled; one raised elsewhere and
                    # passed in still counts (its own traceback is kept).
                    self._exc_info_to_raise = (info if info[1] is ex
                                               else (type(ex), ex, ex.__traceback__))
            self._stop_event.set()

    def clear_stop(self):
        """Clears the stop flag (and the recorded exception)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """`with coord.stop_on_exception():` — an exception raised inside is reported
        with request_stop and not propagated."""
        try:
            yield
        except:  # noqa: E722 - TF catches everything, as a thread's last word
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested; True if one was (False on timeout)."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the registered threads and `threads` to end (after a stop request
        they get `stop_grace_period_secs`); re-raises the first reported exception, or
        RuntimeError naming the threads still running."""
        with self._lock:
            threads = set(threads or ()) | self._registered_threads
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait_secs = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait_secs)
            stop_grace_period_secs -= stop_wait_secs
            stop_wait_secs = 2 * stop_wait_secs
            stop_wait_secs = max(min(stop_wait_secs, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers:
                if ignore_live_threads:
                    logging.info("Coordinator stopped with threads still running: %s",
                                 " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: %s"
                                       % " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the exception reported with request_stop, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]


class LooperThread(threading.Thread):
    """A thread that calls `target(*args, **kwargs)` (or its `run_loop()`) until the
    coordinator stops, every `timer_interval_secs` seconds if given."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also "
                             "pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the loop ends."""

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
