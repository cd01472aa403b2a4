"""A real `jupyter lab` and Debian's chromium for the lab extension's end-to-end test.

`LabServer` starts lab on a free port with a temporary root, settings and workspaces
folder (no state from any other run), the kernelspec this checkout writes and the
extension this checkout built, both put first on JUPYTER_PATH through one temporary
prefix, so nothing outside the temporary folder is read or written. `stop()` always
ends the server (terminate, then kill) — the fixture calls it in its finalizer.

The browser is the system's chromium driven by Playwright (never a downloaded one):
`chromium_path()` finds it or returns None (the test then skips with that reason).
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = os.path.join(ROOT, "tfteach", "labextension")
# flags measured in /work/shared/docs/toolchain-notes.md §5: root, no GPU, small /dev/shm
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


def chromium_path():
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    def __init__(self, base, prefix):
        self.base = base
        self.prefix = prefix
        self.root = os.path.join(base, "root")
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.proc = None
        self.log_path = os.path.join(base, "lab.log")

    def start(self, timeout=90):
        share = os.path.join(self.prefix, "share", "jupyter")
        os.makedirs(os.path.join(share, "labextensions"), exist_ok=True)
        os.symlink(BUILT, os.path.join(share, "labextensions", "tfteach"))
        settings = os.path.join(self.base, "settings")
        notify = os.path.join(settings, "@jupyterlab", "apputils-extension")
        os.makedirs(notify)
        with open(os.path.join(notify, "notification.jupyterlab-settings"), "w") as f:
            json.dump({"fetchNews": "false"}, f)     # no "official news?" toast
        os.makedirs(self.root, exist_ok=True)
        env = dict(os.environ)
        env.update(JUPYTERLAB_SETTINGS_DIR=settings,
                   JUPYTERLAB_WORKSPACES_DIR=os.path.join(self.base, "workspaces"),
                   JUPYTER_RUNTIME_DIR=os.path.join(self.base, "runtime"),
                   JUPYTER_PATH=os.pathsep.join(p for p in (share, os.environ.get(
                       "JUPYTER_PATH")) if p))
        env.pop("TFTEACH_VIRTUAL_GPUS", None)      # the kernelspec's own env decides
        cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
               "--port=%d" % self.port, "--IdentityProvider.token=",
               "--ServerApp.root_dir=" + self.root,
               "--MappingKernelManager.default_kernel_name=tfteach"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")          # lab refuses to start as root otherwise
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("jupyter lab exited: %s" % self.log_text())
            try:
                with urllib.request.urlopen(self.url + "/api/status", timeout=2):
                    return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("jupyter lab did not answer in %d s: %s" % (timeout, self.log_text()))

    def log_text(self):
        try:
            with open(self.log_path) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()               # lab shuts its kernels down on SIGTERM
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if getattr(self, "log", None):
            self.log.close()
