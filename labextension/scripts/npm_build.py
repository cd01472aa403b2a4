"""hatch-jupyter-builder's build function for the lab extension (pyproject.toml).

Why not its own `npm_builder`: that runs `npm install`, which may rewrite the committed
lockfile, and scripts/build.js would then look for a Python with jupyterlab on PATH,
which pip's isolated build hides. Here npm installs exactly the lockfile (`npm ci`) and
build.js is told to use the Python running this build (JUPYTERLAB_PYTHON), i.e. the
isolated build environment where [build-system] put jupyterlab.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def _newest_mtime(path: Path) -> float:
    path = Path(path)
    if path.is_file():
        return path.stat().st_mtime
    return max((p.stat().st_mtime for p in path.rglob("*") if p.is_file()), default=0.0)


def is_stale(target, source) -> bool:
    """True when `target` is missing or a file under `source` is newer than everything in
    it (hatch-jupyter-builder's rule; kept here so this module imports on its own)."""
    if not Path(source).exists():
        return False
    if not Path(target).exists():
        return True
    return _newest_mtime(Path(source)) > _newest_mtime(Path(target))


def _needs_npm_ci(path: Path) -> bool:
    # npm writes node_modules/.package-lock.json at the end of every install.
    installed = path / "node_modules" / ".package-lock.json"
    return not installed.exists() or is_stale(installed, path / "package-lock.json")


def build(target_name: str, version: str, path: str = "labextension",
          build_dir: str | None = None, source_dir: str | None = None,
          build_cmd: str = "build:prod", **_ignored) -> None:
    """Build the extension into build_dir when a source is newer than it (or it is missing)."""
    root = Path(path).resolve()
    built = bool(build_dir) and (Path(build_dir) / "static" / "style.js").exists()
    if built and source_dir and not is_stale(build_dir, source_dir):
        return
    npm = shutil.which("npm")
    if npm is None and built:
        # an sdist ships the extension prebuilt: building its wheel needs no Node
        print("tfteach: npm not found; using the prebuilt lab extension in " + str(build_dir),
              file=sys.stderr)
        return
    if npm is None:
        raise RuntimeError(
            "Building tfteach from source needs Node.js (>= 18) and npm for its JupyterLab "
            "extension: install Node.js, or install a tfteach wheel (which ships the "
            "extension prebuilt)")
    env = dict(os.environ, JUPYTERLAB_PYTHON=sys.executable)
    if _needs_npm_ci(root):
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=root, env=env, check=True)
    subprocess.run([npm, "run", build_cmd], cwd=root, env=env, check=True)
