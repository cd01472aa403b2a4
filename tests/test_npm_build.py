"""labextension/scripts/npm_build.py, the build hook's function (docs/install.md): when it
runs npm, which npm commands, which Python build.js is told to use, and what a machine
without Node is told. npm itself is replaced by a recorder here; the real builds are
scripts/check_dist.sh's (CI) and tests/test_binder.py's."""
import importlib.util
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "npm_build", os.path.join(ROOT, "labextension", "scripts", "npm_build.py"))
npm_build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(npm_build)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A labextension/ with a lockfile and a source, and no build yet; npm recorded."""
    ext = tmp_path / "labextension"
    (ext / "src").mkdir(parents=True)
    (ext / "package-lock.json").write_text("{}")
    (ext / "src" / "plugin.ts").write_text("export {}")
    calls = []
    monkeypatch.setattr(npm_build.shutil, "which", lambda name: "/usr/bin/npm")
    monkeypatch.setattr(npm_build.subprocess, "run",
                        lambda cmd, cwd, env, check: calls.append((cmd, cwd, env)))
    monkeypatch.chdir(tmp_path)
    return tmp_path, calls


def build(**kw):
    npm_build.build("wheel", "standard", path="labextension", build_dir="out",
                    source_dir="labextension/src", build_cmd="build:prod", **kw)


def make_built(root, age=0):
    style = root / "out" / "static" / "style.js"
    style.parent.mkdir(parents=True, exist_ok=True)
    style.write_text("")
    src = root / "labextension" / "src" / "plugin.ts"
    t = src.stat().st_mtime + age
    os.utime(style, (t, t))


def test_no_build_yet_runs_npm_ci_then_the_build_with_this_python(project):
    root, calls = project
    build()
    assert [c[0] for c in calls] == [["/usr/bin/npm", "ci", "--no-audit", "--no-fund"],
                                     ["/usr/bin/npm", "run", "build:prod"]]
    assert all(c[1] == root / "labextension" for c in calls)
    # build.js must use the build environment's Python (pip's isolated one), not PATH's
    assert all(c[2]["JUPYTERLAB_PYTHON"] == sys.executable for c in calls)


def test_up_to_date_build_runs_nothing(project):
    root, calls = project
    make_built(root, age=+10)
    build()
    assert calls == []


def test_a_newer_source_rebuilds_without_reinstalling_node_modules(project):
    root, calls = project
    make_built(root, age=-10)
    installed = root / "labextension" / "node_modules" / ".package-lock.json"
    installed.parent.mkdir()
    installed.write_text("{}")
    lock = root / "labextension" / "package-lock.json"
    t = lock.stat().st_mtime + 5
    os.utime(installed, (t, t))
    build()
    assert [c[0][1:] for c in calls] == [["run", "build:prod"]]


def test_a_newer_lockfile_reinstalls(project):
    root, calls = project
    installed = root / "labextension" / "node_modules" / ".package-lock.json"
    installed.parent.mkdir()
    installed.write_text("{}")
    lock = root / "labextension" / "package-lock.json"
    t = installed.stat().st_mtime + 5
    os.utime(lock, (t, t))
    build()
    assert [c[0][1] for c in calls] == ["ci", "run"]


def test_without_npm_a_built_extension_is_used(project, monkeypatch, capsys):
    root, calls = project
    make_built(root, age=-10)                      # even when it looks older
    monkeypatch.setattr(npm_build.shutil, "which", lambda name: None)
    build()
    assert calls == []
    assert "npm not found; using the prebuilt lab extension" in capsys.readouterr().err


def test_without_npm_and_without_a_build_says_what_to_install(project, monkeypatch):
    monkeypatch.setattr(npm_build.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match=r"needs Node.js \(>= 18\) and npm .* install a "
                                           r"tfteach wheel"):
        build()
