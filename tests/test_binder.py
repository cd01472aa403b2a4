"""Replays what repo2docker does with binder/ (mybinder.org, BinderHub; docs/classroom.md)
and runs lesson 01 on the kernel it leaves.

repo2docker: install apt.txt (graphviz: here the system's, when it has dot), then
`pip install -r binder/requirements.txt` into the image's Python, then run
binder/postBuild from the repository root; binder/start wraps the notebook server. Here:
a copy of this checkout (its tracked and untracked files, plus the built lab extension
when `make` has built it, so this test needs no Node), a fresh venv, the same two steps
with the network on for pip and OFF for the MNIST fetch (a closed local port), then
- the fetch skipped cleanly, postBuild succeeded and left a copy of the lessons;
- `jupyter labextension list` shows tfteach enabled, the kernelspec is in the venv;
- Numba's cache was written (the warm-up);
- lesson 01 executes through binder/start on the installed "Python 3 (tfteach)" kernel,
  with the venv's tfteach, not this checkout's.
Needs PyPI (skipped without it); takes a few minutes (pip's downloads are cached).
"""
import os
import re
import shutil
import socket
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSON = os.path.join("lessons", "01_graphs_and_sessions.ipynb")


def reaches_pypi():
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def checkout_copy(dest):
    """The files a clone would have (tracked + untracked, not ignored), and the built
    extension if there is one."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                           check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = os.path.join(ROOT, name)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, name))
    built = os.path.join(ROOT, "tfteach", "labextension")
    if os.path.exists(os.path.join(built, "static", "style.js")):
        shutil.copytree(built, os.path.join(dest, "tfteach", "labextension"))
        return True
    return False


def clean_env(venv, home, **extra):
    """The environment of repo2docker's build: the image's Python first on PATH, nothing
    from this checkout or its venv."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TFTEACH_", "JUPYTER", "NUMBA_", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
    env["HOME"] = home
    env.update(extra)
    return env


def run(cmd, env, cwd, timeout=900):
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        cmd, proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:])
    return proc.stdout + proc.stderr


@pytest.mark.skipif(not reaches_pypi(), reason="needs PyPI for the binder requirements")
def test_binder_build_replayed_runs_lesson_01(tmp_path):
    repo, venv, home, data = (str(tmp_path / n) for n in ("repo", "venv", "home", "data"))
    os.makedirs(home)
    prebuilt = checkout_copy(repo)
    if not prebuilt and shutil.which("npm") is None:
        pytest.skip("no built lab extension and no npm to build it")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    env = clean_env(venv, home, TFTEACH_BINDER_DATA=data,
                    TFTEACH_MNIST_URL="http://127.0.0.1:%d/" % closed_port())
    py = os.path.join(venv, "bin", "python")

    run([py, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"], env, repo)
    out = run(["bash", "binder/postBuild"], env, repo)
    assert "MNIST not fetched (no network?)" in out, out
    assert "warmed Numba's cache" in out, out
    assert not os.listdir(os.path.join(data, "mnist"))
    # the lessons' copy for hubs with persistent homes (CONDA_DIR unset here: under HOME)
    assert os.path.exists(os.path.join(home, "share", "tfteach-lessons", os.path.basename(LESSON)))

    run([py, "-m", "pip", "check"], env, repo)        # requirements.txt covers tfteach's deps
    listing = run([os.path.join(venv, "bin", "jupyter"), "labextension", "list"], env, repo)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", listing)              # no colours
    assert re.search(r"^\s*tfteach v0\.1\.0 enabled OK", listing, flags=re.M), listing
    specs = run([os.path.join(venv, "bin", "jupyter"), "kernelspec", "list"], env, repo)
    assert os.path.join(venv, "share", "jupyter", "kernels", "tfteach") in specs, specs

    site = run([py, "-c", "import tfteach, os; print(os.path.dirname(tfteach.__file__))"],
               env, home).strip()
    assert site.startswith(venv), site                   # the installed copy, not ROOT's
    cached = [f for _, _, fs in os.walk(site) for f in fs if f.endswith(".nbi")]
    assert len(cached) >= 10, cached

    # the student's session: binder/start, then lesson 01 on the tfteach kernel
    out = run(["bash", "binder/start", py, "scripts/run_lesson.py", LESSON], env, repo)
    assert "%s: ok" % LESSON in out, out
    start_env = run(["bash", "binder/start", "sh", "-c", "echo $TFTEACH_DATA"], env, repo)
    assert start_env.strip() == data
