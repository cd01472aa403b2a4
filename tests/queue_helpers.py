"""Helpers for the queue tests: every blocking call runs with a bound, so a bug fails
the test instead of hanging the suite (pytest-timeout may not be installed)."""
import threading

BOUND = 20.0          # seconds; a correct test needs a fraction of a second


def call_bounded(fn, seconds=BOUND):
    """fn()'s result (or its exception, raised here), asserting it ends in time."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=target, daemon=True, name="bounded-test-call")
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the call did not end within %s s (it hangs)" % seconds
    if "error" in box:
        raise box["error"]
    return box.get("value")


def start_thread(fn, name="test-helper"):
    """A daemon thread running fn; its outcome in thread.box ('value' or 'error')."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001
            box["error"] = e

    t = threading.Thread(target=target, daemon=True, name=name)
    t.box = box
    t.start()
    return t


def runner_threads():
    """The live threads named as TF names queue runner threads."""
    return [t for t in threading.enumerate() if t.name.startswith("QueueRunnerThread-")]
