"""The notebook-memory layer without a kernel: formatting, who holds a session, the
per-cell hooks on a stand-in shell, the kernelspec, the error form, the GPU fallback."""
import json
import os
import sys
import types
import weakref

import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)
from tfteach.notebook import cell_memory, error_display, memory_report, session_refs
from tfteach.notebook.memory_report import format_bytes
from tfteach.runtime import devices
from tfteach.runtime.session import live_sessions

# tfteach's own code (a checkout may itself sit in a folder named tfteach, CI's does)
PACKAGE = os.path.dirname(os.path.abspath(__import__("tfteach").__file__)) + os.sep

MIB = 1 << 20


# -- formatting ------------------------------------------------------------------------------
def test_format_bytes():
    assert [format_bytes(n) for n in (0, 256, 1024, 1536, 100 * MIB, 812 * MIB,
                                      1728053248, 3 << 30, 1.5 * (1 << 30))] == [
        "0 B", "256 B", "1 KiB", "1.5 KiB", "100 MiB", "812 MiB", "1.61 GiB", "3 GiB",
        "1.5 GiB"]


def record(**kw):
    base = {"cell": 3, "device": "GPU:0", "virtual": True, "in_use_before": 0,
            "in_use_after": 0, "reserved_before": 0, "reserved_after": 0, "peak": 0,
            "released": 0, "holders": [], "closed": [], "skipped": False}
    base.update(kw)
    return base


def test_summary_line_is_the_issues_example():
    r = record(peak=812 * MIB, released=748 * MIB, holders=[("sess", 64 * MIB)],
               in_use_after=64 * MIB, reserved_after=64 * MIB)
    assert memory_report.summary_line(r) == (
        "GPU:0 (virtual): peak 812 MiB; released 748 MiB idle; "
        "64 MiB held by open session 'sess'")


def test_summary_names_several_holders_unnamed_ones_other_buffers_and_closed():
    r = record(virtual=False, peak=MIB, released=0, in_use_after=100 * MIB,
               holders=[("a", 48 * MIB), ("", 16 * MIB), ("idle", 0)],
               closed=["Out[4]"])
    lines = memory_report.summary_lines([r])
    assert lines == [
        "GPU:0: peak 1 MiB; released 0 B idle; 64 MiB held by open sessions 'a' (48 MiB), "
        "one with no name (16 MiB); 36 MiB in use by other buffers",
        "closed 1 session nothing else used: Out[4]"]
    skipped = memory_report.summary_line(record(skipped=True, reserved_after=5 * MIB))
    assert skipped == ("GPU:0 (virtual): peak 0 B; release skipped for this cell "
                       "(5 MiB reserved); nothing held")


def test_tables_escape_every_name_in_html_and_keep_text_readable():
    r = record(holders=[("<script>x</script>", MIB)], closed=["d['<i>']"])
    shown = memory_report.history_table([r])
    bundle = shown._repr_mimebundle_()
    assert "<script>" not in bundle["text/html"] and "<i>" not in bundle["text/html"]
    assert "&lt;script&gt;x&lt;/script&gt; 1 MiB" in bundle["text/html"]
    assert "<script>x</script> 1 MiB" in bundle["text/plain"]
    lines = bundle["text/plain"].splitlines()
    assert lines[1].split()[:3] == ["cell", "device", "in"]
    assert lines[3].startswith("In [3]  GPU:0 (virtual)")
    assert "No cell" in memory_report.history_table([]).text
    summary = memory_report.summary_display([r])._repr_mimebundle_()
    assert "&lt;script&gt;" in summary["text/html"] and "<script>" not in summary["text/html"]


# -- who holds a session ---------------------------------------------------------------------
class Thing:
    def __init__(self):
        self.me = self                  # a reference cycle, like a Session that ran


def fake_shell(**ns):
    out = {}
    ns.setdefault("_oh", out)
    return types.SimpleNamespace(user_ns=ns, user_ns_hidden={}, displayhook=None)


def test_only_history_holds_tells_the_history_from_the_program():
    t = Thing()
    ref = weakref.ref(t)
    shell = fake_shell(sess=t)
    del t
    assert not session_refs.only_history_holds(ref, shell)        # a user variable
    obj = shell.user_ns.pop("sess")
    shell.user_ns["_oh"][5] = obj
    shell.user_ns["_5"] = shell.user_ns["_"] = obj
    shell.user_ns_hidden["_5"] = obj
    assert not session_refs.only_history_holds(ref, shell)   # `_` the user assigned
    shell.displayhook = types.SimpleNamespace(_=obj)          # `_` IPython assigned
    del obj
    assert session_refs.only_history_holds(ref, shell)            # Out[5], _5, _
    shell.user_ns["keep"] = {"k": [ref()]}
    assert not session_refs.only_history_holds(ref, shell)        # nested in a variable
    del shell.user_ns["keep"]
    module = types.ModuleType("lesson_helpers")
    module.sess = ref()
    assert not session_refs.only_history_holds(ref, shell)        # a module global
    del module
    local = [ref()]                                # a running frame's local: invisible
    assert not session_refs.only_history_holds(ref, shell)
    del local
    assert session_refs.only_history_holds(ref, shell)
    assert session_refs.only_history_holds(weakref.ref(Thing), shell) is False


def test_a_session_only_the_last_traceback_holds(monkeypatch):
    def fails(obj):
        raise ValueError("boom")
    t = Thing()
    ref = weakref.ref(t)
    try:
        fails(t)
    except ValueError as e:
        monkeypatch.setattr(sys, "last_value", e, raising=False)
        monkeypatch.setattr(sys, "last_traceback", e.__traceback__, raising=False)
    del t
    shell = fake_shell()
    assert session_refs.only_history_holds(ref, shell)
    monkeypatch.setattr(sys, "kept_by_a_tool", ref(), raising=False)   # another sys name
    assert not session_refs.only_history_holds(ref, shell)


def test_user_names():
    t = Thing()
    holder = types.SimpleNamespace(sess=t)
    shell = fake_shell(b=t, a=t, lst=[1, t], d={"x": t}, obj=holder, _3=t)
    assert session_refs.user_names(t, shell, limit=10) == [
        "a", "b", "d['x']", "lst[1]", "obj.sess"]


# -- the hooks on a stand-in shell -----------------------------------------------------------
class Shell:
    def __init__(self):
        self.user_ns = {"_oh": {}}
        self.user_ns_hidden = {}
        self.displayhook = None
        self.execution_count = 1


@pytest.fixture
def monitor(virtual_gpus):
    virtual_gpus(1, memory_limit=1024)
    for s in live_sessions():
        s.close()
    m = cell_memory.CellMemory(Shell())
    shown = []
    m._show = shown.append
    m.shown = shown
    return m


def run_cell(m, code, ns):
    m.pre_run_cell()
    exec(code, ns)
    m.post_run_cell(types.SimpleNamespace(execution_count=m.shell.execution_count))
    m.shell.execution_count += 1


def test_a_cell_that_touches_no_gpu_records_nothing(monitor):
    tf.Session().close()                  # devices listed, GPU configured once
    tf.config.release_memory()
    alloc = devices.local_devices()[1].allocator
    alloc.peak_bytes_in_use = 12345       # a process-wide peak from earlier
    run_cell(monitor, "y = 1 + 1", monitor.shell.user_ns)
    assert monitor.shown == [] and list(monitor.history) == []
    assert alloc.peak_bytes_in_use == 12345


def test_cell_release_keeps_what_a_named_session_holds(monitor):
    ns = monitor.shell.user_ns
    ns.update(tf=tf, np=np)
    limit = 1024 * MIB - 225 * MIB                      # TF's margin under 2 GiB
    run_cell(monitor, "x = tf.placeholder(tf.float32, [1 << 20])\nv = tf.Variable(x)\n"
                      "sess = tf.Session()\n"
                      "sess.run(v.initializer, {x: np.ones(1 << 20, np.float32)})", ns)
    [r] = list(monitor.history)
    assert (r["in_use_after"], r["reserved_after"]) == (4 * MIB, 4 * MIB)
    assert r["released"] == limit - 4 * MIB and r["holders"] == [("sess", 4 * MIB)]
    # The fed value's copy to the GPU is read by the Assign only: as TensorFlow's Assign
    # forwards that buffer, the variable takes it (no second 4 MiB; assign_forwarding.py).
    assert r["peak"] == 4 * MIB
    assert "4 MiB held by open session 'sess'" in monitor.shown[0].text
    run_cell(monitor, "del sess", ns)                   # in a cycle: only gc frees it
    r = monitor.history[-1]
    assert (r["in_use_after"], r["reserved_after"], r["released"]) == (0, 0, 4 * MIB)
    assert live_sessions() == []


def test_an_unnamed_interactive_session_stays_open(monitor):
    ns = monitor.shell.user_ns
    ns.update(tf=tf)
    run_cell(monitor, "tf.InteractiveSession()\n(tf.constant([1.0]) * 2.0).eval()", ns)
    [session] = live_sessions()
    try:
        assert not session._closed                 # the default session: in use
        r = monitor.history[-1]
        assert r["holders"] == [("default InteractiveSession", r["in_use_after"])]
        assert r["in_use_after"] > 0
    finally:
        session.close()


def test_skip_release_and_release_now(monitor):
    ns = monitor.shell.user_ns
    ns.update(tf=tf, cell_memory=cell_memory)
    cell_memory._monitor, saved = monitor, cell_memory._monitor
    try:
        run_cell(monitor, "cell_memory.skip_release_for_this_cell()\n"
                          "s = tf.Session()\ns.run(tf.constant([1.0]) * 2.0)", ns)
        r = monitor.history[-1]
        assert r["skipped"] and r["released"] == 0
        assert r["reserved_after"] == 1024 * MIB - 225 * MIB
        records = monitor.release_now(close_sessions=True)
        assert records[0]["closed"] == ["s"] and ns["s"]._closed
        assert records[0]["reserved_after"] == 0
    finally:
        cell_memory._monitor = saved


def test_devices_rows_label_virtual_gpus(monitor):
    rows = cell_memory.devices_rows(monitor)
    assert rows[0][:2] == ("CPU:0", "CPU")
    assert rows[1][:3] == ("GPU:0", "virtual GPU", "1 GiB")
    assert rows[1][7] == "not configured (next session decides)"


# -- the kernelspec ---------------------------------------------------------------------------
def test_kernel_dict_and_install_options(tmp_path, capsys):
    from tfteach import kernel
    from tfteach.kernel.__main__ import main
    spec = kernel.kernel_dict(virtual_gpus=0, executable="/py", malloc_settings=False)
    assert spec["argv"] == ["/py", "-m", "ipykernel_launcher", "-f", "{connection_file}",
                            "--ext=tfteach"]
    assert spec["env"] == {} and spec["display_name"] == "Python 3 (tfteach)"
    assert kernel.kernel_dict(virtual_gpus=0)["env"] == kernel.MALLOC_ENV == {
        "MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "134217728"}
    assert kernel._where(sys_prefix=True) == {"user": False, "prefix": sys.prefix}
    assert main(["install", "--prefix", str(tmp_path), "--virtual-gpus", "3"]) == 0
    path = tmp_path / "share" / "jupyter" / "kernels" / "tfteach" / "kernel.json"
    spec = json.loads(path.read_text())
    assert spec["env"] == dict(kernel.MALLOC_ENV, TFTEACH_VIRTUAL_GPUS_IF_NO_GPU="3")
    assert main(["install", "--prefix", str(tmp_path), "--keep-malloc-defaults"]) == 0
    assert json.loads(path.read_text())["env"] == {"TFTEACH_VIRTUAL_GPUS_IF_NO_GPU": "1"}
    assert spec["argv"][0] == sys.executable
    assert main(["uninstall", "--prefix", str(tmp_path)]) == 0
    assert "Removed" in capsys.readouterr().out and not path.exists()
    with pytest.raises(SystemExit):
        main(["install", "--user", "--sys-prefix"])      # one location at most


def test_virtual_gpus_only_when_there_is_no_real_gpu(monkeypatch, virtual_gpus):
    # conftest runs Numba's CUDA simulator: no real GPU in this process.
    assert devices._cuda_gpus() == []
    monkeypatch.setenv("TFTEACH_VIRTUAL_GPUS_IF_NO_GPU", "2")
    devices._registry = None
    gpus = [d for d in devices.local_devices() if d.device_type == "GPU"]
    assert [(d.short_name, d.is_virtual) for d in gpus] == [
        ("/device:GPU:0", True), ("/device:GPU:1", True)]
    tf.config.set_virtual_gpus(0)                     # an explicit "no virtual GPUs"
    assert [d.device_type for d in devices.local_devices()] == ["CPU"]
    monkeypatch.setattr(devices, "_cuda_gpus", lambda: ["a real card"])
    devices._registry = None
    assert devices.local_devices()[1:] == ["a real card"]


# -- the error form ---------------------------------------------------------------------------
def test_teaching_traceback_rewrites_cells_and_hides_engine_frames():
    class Compiler:
        def format_code_name(self, name):
            return ("Cell", "In[7]") if name == "/tmp/ipykernel_1/42.py" else None
    shell = types.SimpleNamespace(compile=Compiler())
    assert error_display.cell_location(shell, "/tmp/ipykernel_1/42.py", 3) == \
        "Cell In[7], line 3"
    msg = ("You must feed a value for placeholder tensor 'x'\n"
           "\t [[node x (defined at /tmp/ipykernel_1/42.py:3) ]]\nHint: feed it.")
    x = tf.placeholder(tf.float32, name="x")
    try:
        with tf.Session() as sess:
            sess.run(x)
    except tf.errors.InvalidArgumentError as e:
        etype, tb = type(e), e.__traceback__
    [text] = error_display.teaching_traceback(shell, etype, etype(None, None, msg), tb)
    assert "[[node x (defined at Cell In[7], line 3) ]]" in text
    assert PACKAGE not in text
    assert "sess.run(x)" in text and "Hint: feed it." in text


def test_teaching_traceback_quotes_the_students_line_once():
    # A placement error has `(defined at ...)` in its first line and quotes the line
    # under its `[[MatMul]]` line (docs/devices.md): the form must not quote it twice.
    import linecache
    source = "a = 1\nproduct = tf.matmul(a, a)\n"
    linecache.cache["/tmp/ipykernel_1/43.py"] = (len(source), None, source.splitlines(True),
                                                 "/tmp/ipykernel_1/43.py")
    shell = types.SimpleNamespace(compile=None)
    msg = ("Cannot assign a device for operation MatMul: node MatMul (defined at "
           "/tmp/ipykernel_1/43.py:2)  was explicitly assigned to /device:GPU:1 but ...\n"
           "\t [[MatMul]]\n\t  product = tf.matmul(a, a)\nHint: soft placement.")
    try:
        lines = error_display._rewrite_message(shell, msg)
    finally:
        linecache.cache.pop("/tmp/ipykernel_1/43.py", None)
    assert lines.count("\t  product = tf.matmul(a, a)") == 1, lines
