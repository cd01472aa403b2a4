"""What a Session owns besides variables: its resources (queues, readers) and the
threads that feed them.

TensorFlow keeps a queue in the session's ResourceMgr: created by the first run of its
queue op, named `_<n>_<op name>`, or by its `shared_name`. `n` comes from one counter of
the whole process (TF's `ResourceMgr::GenerateUniqueId`), so the first queue a program
creates is `_0_fifo_queue`, the name TF's errors print, and the next session's is
`_1_fifo_queue`. `SessionResources` is that manager for one tfteach Session.

Threads: `tf.train.start_queue_runners` registers the runner threads of a session here.
When the session closes (`Session.close()`, the end of a `with tf.Session()` block, or
the notebook closing a session nothing uses), `close()` cancels every resource (a thread
waiting in a queue op wakes with CancelledError and its runner ends quietly) and joins
the registered threads, so no thread outlives its session (DESIGN.md: "anything that
runs threads belongs to a Session and stops and joins when the Session closes").
"""
import itertools
import threading

__all__ = ["SessionResources", "JOIN_SECONDS", "creating_kernel"]

# How long close() waits for each runner thread. A runner stops at its next queue op
# (cancelled at once) or its next run (the session is closed); only a kernel that
# computes for longer than this can outlive the wait (it ends at its next run).
JOIN_SECONDS = 10.0

# The process's resource counter (TF's ResourceMgr::GenerateUniqueId, a static atomic).
_unique_ids = itertools.count()


def creating_kernel(make):
    """The kernel of an op that creates a session resource (a queue op, a reader op):
    its output is the resource of the op (or of its `shared_name`) in the running
    session, made by `make(resource_name, op)` the first time and kept in the op's
    kernel state after that."""
    def kernel(ctx):
        resource = ctx.state.get("resource")
        if resource is None:
            op = ctx.op
            resource = ctx.session.resources.lookup_or_create(
                op, op._attrs.get("shared_name", ""), lambda name: make(name, op))
            ctx.state["resource"] = resource
        return resource
    return kernel


class SessionResources:
    def __init__(self):
        self._lock = threading.Lock()
        self._resources = {}
        self._threads = []
        self._closed = False

    def lookup_or_create(self, op, shared_name, create):
        """The resource of `op` (or of its `shared_name`) in this session, made by
        `create(resource_name)` the first time; one creation even if threads race."""
        key = ("shared", shared_name) if shared_name else ("op", op)
        with self._lock:
            resource = self._resources.get(key)
            if resource is None:
                if shared_name:
                    name = shared_name
                else:
                    name = "_%d_%s" % (next(_unique_ids), op.name)
                resource = self._resources[key] = create(name)
                if self._closed:                 # made by a run racing with close()
                    resource.cancel()
            return resource

    def lookup(self, shared_name):
        """The resource of `shared_name` in this session, or None (not made yet)."""
        with self._lock:
            return self._resources.get(("shared", shared_name))

    def remove(self, shared_name):
        """Takes the resource of `shared_name` out of this session (TF's DestroyResource
        ops); returns it, or None."""
        with self._lock:
            return self._resources.pop(("shared", shared_name), None)

    def add_thread(self, thread):
        """A thread working for this session: joined when the session closes."""
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)

    def threads(self):
        with self._lock:
            return [t for t in self._threads if t.is_alive()]

    def close(self):
        """Cancel every resource (waking the threads waiting in them), then join the
        session's threads (not the calling thread, if it is one of them)."""
        with self._lock:
            self._closed = True
            resources = list(self._resources.values())
            threads, self._threads = self._threads, []
        for resource in resources:
            resource.cancel()
        current = threading.current_thread()
        for thread in threads:
            if thread is not current:
                thread.join(JOIN_SECONDS)
