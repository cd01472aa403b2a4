"""Running one function in several threads at once, for the tests that check thread
safety: every thread started, every thread joined, and what any of them raised
reported by the calling test."""
import threading


def run_in_threads(target, count):
    """target(k) for k in range(count), each in its own thread, all at once. Fails the
    test with every exception a thread raised (a thread's own exception would only be
    printed, and the test pass)."""
    errors = []

    def guarded(k):
        try:
            target(k)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            errors.append("thread %d: %r" % (k, e))
    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
