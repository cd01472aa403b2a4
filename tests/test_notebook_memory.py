"""Per-cell GPU memory in real notebooks, on the real "Python 3 (tfteach)" kernel.

One kernel for the whole file (nb_kernel_helpers.NotebookKernel): each test appends
cells to the same notebook, builds its own graph and closes what it opened. The
expected figures are computed here from the sizes chosen: the kernel's virtual GPU has
TFTEACH_VIRTUAL_GPU_MEMORY's default 2048 MiB, so TensorFlow's default reservation is
2048 MiB minus its 300 MiB system margin (gpu_device.cc: max(300 MiB, 5%)).
"""
import json
import os

import pytest

from nb_kernel_helpers import (MIB, NotebookKernel, error_output, install_kernelspec,
                               kernel_environment, mime, stream_text, traceback_text)

# tfteach's own code (a checkout may itself sit in a folder named tfteach, CI's does)
PACKAGE = os.path.dirname(os.path.abspath(__import__("tfteach").__file__)) + os.sep

TOTAL = 2048 * MIB
LIMIT = TOTAL - 300 * MIB                 # the default reservation, in bytes
N = 25 * MIB // 4 * 4                     # float32 elements in 100 MiB
HUNDRED_MIB = 100 * MIB

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("kernelspec"))
    path = install_kernelspec(prefix)
    with kernel_environment(prefix):
        yield path


@pytest.fixture(scope="module")
def nb(spec_dir):
    with NotebookKernel("tfteach") as kernel:
        kernel.run("import numpy as np\nimport tfteach as tf\n"
                   "from tfteach.notebook import cell_memory")
        yield kernel


def last_record(nb):
    return nb.value("[{k: v for k, v in r.items() if k != 'holders'} | "
                    "{'holders': [list(h) for h in r['holders']]} "
                    "for r in cell_memory.current_monitor().history][-1]")


def var_cell(name, elements, session="sess"):
    """A cell that keeps `session` holding one float32 variable of `elements` on GPU:0
    (fed through a placeholder, so the session holds the variable's buffer only)."""
    return ("tf.reset_default_graph()\n"
            "x = tf.placeholder(tf.float32, [%d], name='x')\n"
            "v = tf.Variable(x, name=%r)\n"
            "%s = tf.Session()\n"
            "%s.run(v.initializer, {x: np.ones(%d, np.float32)})"
            % (elements, name, session, session, elements))


def test_kernelspec_has_the_extension_the_display_name_and_the_gpu_fallback(spec_dir):
    with open(os.path.join(spec_dir, "kernel.json")) as f:
        spec = json.load(f)
    assert spec["display_name"] == "Python 3 (tfteach)"
    assert spec["argv"][1:5] == ["-m", "ipykernel_launcher", "-f", "{connection_file}"]
    assert spec["argv"][-1] == "--ext=tfteach"           # survives restarts: it is argv
    assert spec["env"] == {"TFTEACH_VIRTUAL_GPUS_IF_NO_GPU": "1",
                           "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
                           "MALLOC_TRIM_THRESHOLD_": str(128 << 20)}
    assert os.path.exists(os.path.join(spec_dir, "logo-64x64.png"))


def test_the_kernel_has_the_extension_and_a_virtual_gpu_when_no_real_one(nb):
    got = nb.value("{'cuda': __import__('tfteach').runtime.devices._cuda_gpus() != [], "
                   "'loaded': 'tfteach' in get_ipython().extension_manager.loaded, "
                   "'gpus': [(d.name, d.is_virtual) for d in "
                   "tf.config.list_physical_devices('GPU')], "
                   "'magics': sorted(m for m in get_ipython().magics_manager.magics['line']"
                   " if m.startswith('tf'))}")
    assert got["cuda"] is False                          # precondition: no real GPU here
    assert got["loaded"] is True
    assert got["gpus"] == [["/physical_device:GPU:0", True]]
    assert {"tfdevices", "tfmemory", "tfrelease"} <= set(got["magics"])


def test_the_kernel_keeps_freed_memory_for_the_next_step(nb):
    # kernel.json's MALLOC_ENV reaches the kernel process, and glibc then serves a step
    # that allocates and frees ~80 MiB in 1.3 MiB arrays (an eager LSTM's gradients)
    # from memory it kept: with glibc's defaults the same three steps fault ~58,000
    # pages in again (measured in a plain process, 2026-11-28).
    got = nb.value(
        "(lambda os, resource, np: ("
        "    [os.environ.get(k) for k in ('MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_')],"
        "    (lambda churn: (churn(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt,"
        "                    [churn() for _ in range(3)],"
        "                    resource.getrusage(resource.RUSAGE_SELF).ru_minflt))"
        "    (lambda: [np.ones(330000, np.float32) for _ in range(60)] and None)))"
        "(__import__('os'), __import__('resource'), __import__('numpy'))")
    env, (_, before, _, after) = got
    assert env == [str(32 << 20), str(128 << 20)]
    assert after - before < 1000


def test_a_cell_that_touches_no_device_shows_nothing(nb):
    cell = nb.run("1 + 1")
    assert mime(cell, "text/plain") == ["2"] and stream_text(cell) == ""


def test_a_kept_session_keeps_only_what_it_holds_and_closing_frees_all(nb):
    cell = nb.run(var_cell("v100", N))
    s = nb.stats()
    assert s["bytes_in_use"] == HUNDRED_MIB
    assert s["bytes_reserved"] == HUNDRED_MIB            # not LIMIT: idle part given back
    record = last_record(nb)
    assert record["released"] == LIMIT - HUNDRED_MIB
    assert record["holders"] == [["sess", HUNDRED_MIB]]
    assert HUNDRED_MIB <= record["peak"] <= 2 * HUNDRED_MIB   # variable (+ the fed copy)
    summary = "\n".join(mime(cell, "text/plain"))
    assert "GPU:0 (virtual): peak " in summary
    assert "released 1.61 GiB idle; 100 MiB held by open session 'sess'" in summary
    assert nb.value("sess.run(tf.reduce_sum(v)).item()") == N   # still usable
    nb.run("sess.close()")
    s = nb.stats()
    assert s["bytes_in_use"] == 0 and s["bytes_reserved"] == 0


def test_a_session_only_the_output_history_holds_is_closed(nb):
    nb.run(var_cell("v4", 1 << 20, session="shown"))
    nb.run("shown")                                        # Out[n], _ and _n hold it now
    cell = nb.run("del shown")
    assert nb.stats()["bytes_reserved"] == 0
    closed = last_record(nb)["closed"]
    assert len(closed) == 1 and closed[0].startswith("Out[")
    assert "closed 1 session nothing else used: Out[" in "\n".join(mime(cell, "text/plain"))


def test_sessions_held_by_a_container_stay_open_and_are_named(nb):
    nb.run(var_cell("v8", 2 << 20, session="kept_one") + "\n"
           "keep = {'<b>': kept_one}\ndel kept_one")
    s = nb.stats()
    assert s["bytes_in_use"] == s["bytes_reserved"] == 8 * MIB
    assert last_record(nb)["holders"] == [["keep['<b>']", 8 * MIB]]
    cell = nb.run("%tfdevices")
    html = "\n".join(mime(cell, "text/html"))
    assert "<table" in html and "virtual GPU" in html
    assert "keep[&#x27;&lt;b&gt;&#x27;] 8 MiB" in html and "<b>" not in html
    text = "\n".join(mime(cell, "text/plain"))
    assert "GPU:0" in text and "virtual GPU" in text and "keep['<b>'] 8 MiB" in text
    nb.run("%tfrelease")                                   # keeps what is used
    assert nb.value("keep['<b>']._closed") is False
    cell = nb.run("%tfrelease --close-sessions")
    assert "closed 1 session nothing else used: keep['<b>']" in "\n".join(
        mime(cell, "text/plain"))
    assert nb.value("keep['<b>']._closed") is True
    s = nb.stats()
    assert s["bytes_in_use"] == 0 and s["bytes_reserved"] == 0


def test_a_session_left_in_the_last_errors_traceback_is_closed(nb):
    cell = nb.run("tf.reset_default_graph()\n"
                  "def train():\n"
                  "    w = tf.Variable(tf.zeros([1024]))\n"
                  "    local = tf.Session()\n"
                  "    local.run(tf.global_variables_initializer())\n"
                  "    local.run(tf.placeholder(tf.float32) * 2.0)\n"
                  "train()")
    assert error_output(cell)["ename"] == "InvalidArgumentError"
    assert nb.stats()["bytes_reserved"] == 0
    assert nb.value("len(__import__('tfteach').runtime.session.live_sessions())") == 0


def test_error_cells_show_the_students_line_and_hint_without_engine_frames(nb):
    define = nb.run("tf.reset_default_graph()\n"
                    "y = tf.placeholder(tf.float32, [None, 3], name='y')\n"
                    "z = y * 2.0")
    cell = nb.run("with tf.Session() as s:\n    s.run(z)")
    err = error_output(cell)
    assert err["ename"] == "InvalidArgumentError"
    text = traceback_text(cell)
    n = define["execution_count"]
    assert "[[node y (defined at Cell In[%d], line 2) ]]" % n in text
    assert "y = tf.placeholder(tf.float32, [None, 3], name='y')" in text
    assert "Hint: a placeholder has no value of its own" in text
    assert "Cell In[%d], line 2" % cell["execution_count"] in text     # where it was run
    assert "s.run(z)" in text
    assert "session.py" not in text and "executor" not in text and PACKAGE not in text
    plain = nb.run("def f():\n    return 1 / 0\nf()")
    err = error_output(plain)
    assert err["ename"] == "ZeroDivisionError"
    text = traceback_text(plain)
    assert "return 1 / 0" in text and "----> 2" in text            # IPython's own form


def test_build_time_errors_get_the_teaching_form_and_a_hint(nb):
    cell = nb.run("tf.reset_default_graph()\n"
                  "a = tf.ones([2, 3])\n"
                  "b = tf.matmul(a, a)")
    err = error_output(cell)
    assert err["ename"] == "ValueError"                 # TensorFlow's class, as raised
    text = traceback_text(cell)
    assert "Dimensions must be equal, but are 3 and 2 for 'MatMul'" in text
    assert "Hint: tf.matmul(a, b) needs a of shape [m, k]" in text
    assert "Cell In[%d], line 3" % cell["execution_count"] in text
    assert "b = tf.matmul(a, a)" in text
    assert PACKAGE not in text          # no engine frames
    scope = nb.run("with tf.variable_scope('foo'):\n    v = tf.get_variable('v', [1])\n"
                   "with tf.variable_scope('foo'):\n    v = tf.get_variable('v', [1])")
    text = traceback_text(scope)
    assert "Variable foo/v already exists, disallowed" in text and "reuse=True" in text
    assert PACKAGE not in text
    own = nb.run("raise ValueError('my own bug')")        # not from tfteach: IPython's form
    text = traceback_text(own)
    assert "my own bug" in text and "Hint:" not in text and "----> 1" in text


def test_skip_release_keeps_the_reservation_for_one_cell(nb):
    cell = nb.run("tf.reset_default_graph()\n"
                  "cell_memory.skip_release_for_this_cell()\n"
                  "kept = tf.Session()\nkept.run(tf.constant([1.0]) * 2.0)\ndel kept")
    assert "release skipped for this cell" in "\n".join(mime(cell, "text/plain"))
    assert nb.value("__import__('tfteach').config.memory_stats()['bytes_reserved']") \
        == LIMIT                                          # nothing given back yet
    # nb.value's cell touched no GPU, but the release skipped before happens there.
    assert nb.stats()["bytes_reserved"] == 0


def test_tfgraph_no_release_keeps_the_reservation_for_one_cell(nb):
    cell = nb.run("%%tfgraph --no-release\n"
                  "kept = tf.Session()\nkept.run(tf.constant([1.0]) * 2.0)\ndel kept")
    assert "release skipped for this cell" in "\n".join(mime(cell, "text/plain"))
    assert nb.value("__import__('tfteach').config.memory_stats()['bytes_reserved']") \
        == LIMIT
    assert nb.stats()["bytes_reserved"] == 0


def test_memory_history_lists_the_cells(nb):
    nb.run(var_cell("v100h", N, session="hist"))
    nb.run("hist.close()")
    cell = nb.run("%tfmemory")
    text = "\n".join(mime(cell, "text/plain"))
    html = "\n".join(mime(cell, "text/html"))
    assert "Device memory per cell" in text and "<table" in html
    assert "GPU:0 (virtual)" in text and "1.61 GiB" in text and "hist 100 MiB" in text


def test_a_hundred_cells_that_make_and_drop_sessions_do_not_grow(nb):
    size = 2 << 20                                         # 8 MiB variable per session
    nb.run(var_cell("v8b", size, session="s") + "\ndel s")
    nb.run("import gc, resource\n"
           "def rss():\n"
           "    with open('/proc/self/statm') as f:\n"
           "        return int(f.read().split()[1]) * resource.getpagesize()\n"
           "rss_before = rss()\n"
           "start = len(cell_memory.current_monitor().history)")
    for _ in range(100):
        nb.run("s = tf.Session()\ns.run(v.initializer, {x: np.ones(%d, np.float32)})"
               % size)                                   # the previous `s` is dropped
    nb.run("del s")
    got = nb.value("{'rss': rss() - rss_before, 'sessions': len(__import__('tfteach')"
                   ".runtime.session.live_sessions()), 'in_use': [r['in_use_after'] for r"
                   " in list(cell_memory.current_monitor().history)[start:]]}")
    assert got["sessions"] == 0
    assert len(got["in_use"]) == 101
    assert max(got["in_use"]) == 4 * size and got["in_use"][-1] == 0
    assert got["rss"] < 100 * MIB                          # leaking would be ~800 MiB
    s = nb.stats()
    assert s["bytes_in_use"] == 0 and s["bytes_reserved"] == 0
