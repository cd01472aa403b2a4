"""scripts/gpu_lessons.py, the lessons-on-a-card check of scripts/gpu_check.sh
--lessons, on this machine's tfteach kernel: it needs no GPU to run, only to mean
something, and a lease must not be the first place it is tried.

It reports a clean lesson, a failing cell, a lesson stopped at its wall limit (with its
kernel gone) and lessons left unstarted at the deadline, and says so in its exit status.
"""
import json
import os
import subprocess
import sys
import time

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nb_kernel_helpers import tfteach_kernel  # noqa: E402,F401 (fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "scripts", "gpu_lessons.py")
LESSON_01 = os.path.join(ROOT, "lessons", "01_graphs_and_sessions.ipynb")


def _notebook(path, *sources):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(nb, str(path))
    return str(path)


def _run(tmp_path, *args):
    out = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, SCRIPT, "--json", str(out)] + list(args),
                          capture_output=True, text=True, timeout=300)
    return proc, json.loads(out.read_text())


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_clean_lesson_and_a_failing_cell(tfteach_kernel, tmp_path):
    broken = _notebook(tmp_path / "broken.ipynb", "import tfteach as tf",
                       "tf.constant([1, 2]) + tf.constant([1, 2, 3])")
    proc, result = _run(tmp_path, "--workers", "2", LESSON_01, broken)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert result["01_graphs_and_sessions.ipynb"]["status"] == "ok"
    assert result["broken.ipynb"]["status"] == "FAILED"
    (problem,) = result["broken.ipynb"]["problems"]
    assert "cell 1 failed: ValueError: Dimensions must be equal" in problem
    assert "1 of 2 lessons passed" in proc.stdout


def test_a_lesson_past_its_limit_is_stopped_with_its_kernel(tfteach_kernel, tmp_path):
    pid_file = tmp_path / "kernel.pid"
    slow = _notebook(tmp_path / "slow.ipynb",
                     "import os\nopen(%r, 'w').write(str(os.getpid()))" % str(pid_file),
                     "import time\ntime.sleep(120)")
    proc, result = _run(tmp_path, "--lesson-limit", "20", slow)
    assert proc.returncode == 1
    assert result["slow.ipynb"]["status"] == "stopped after 20 s"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10          # SIGKILL is delivered, not awaited
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(pid), "the lesson's kernel outlived its stop"


def test_no_lesson_starts_after_the_deadline(tmp_path):
    proc, result = _run(tmp_path, "--deadline", "-1", LESSON_01)
    assert proc.returncode == 1
    assert result == {}
    assert "not started (deadline)" in proc.stdout
    assert "0 of 1 lessons passed, 0 run" in proc.stdout
