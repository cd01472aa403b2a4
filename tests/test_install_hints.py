"""What a user without some piece of the set-up is told: one line saying what to install
(tfteach/install_hints.py; docs/install.md)."""
import sys

import pytest

import tfteach as tf
from tfteach import install_hints
from tfteach.notebook import graph_dot, graph_export
from tfteach.notebook.graph_view import mime_bundle


def test_require_returns_the_module():
    assert install_hints.require("json", "this test") is sys.modules["json"]


def test_missing_module_is_one_line_naming_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "ipykernel", None)     # as if not installed
    monkeypatch.setitem(sys.modules, "ipykernel.kernelspec", None)  # (an earlier import)
    with pytest.raises(ModuleNotFoundError) as info:
        install_hints.require("ipykernel.kernelspec", "The tfteach kernel")
    msg = str(info.value)
    assert msg == ("The tfteach kernel needs ipykernel, which is not installed: "
                   "pip install ipykernel")
    assert "\n" not in msg and info.value.name == "ipykernel"


def test_unknown_missing_module_gets_pip_install_of_its_name():
    with pytest.raises(ModuleNotFoundError, match=r": pip install tfteach_no_such_module$"):
        install_hints.require("tfteach_no_such_module", "x")


def test_a_broken_import_inside_the_module_keeps_its_own_error(tmp_path, monkeypatch):
    # the module exists but something it imports does not: not a "please install" case
    (tmp_path / "tfteach_broken_mod.py").write_text("import tfteach_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as info:
        install_hints.require("tfteach_broken_mod", "x")
    assert info.value.name == "tfteach_missing_dependency"
    assert "pip install" not in str(info.value)


def test_kernel_install_without_ipykernel_says_install_it(monkeypatch, capsys, tmp_path):
    from tfteach.kernel.__main__ import main
    monkeypatch.setitem(sys.modules, "ipykernel", None)
    monkeypatch.delitem(sys.modules, "ipykernel.kernelspec", raising=False)
    assert main(["install", "--prefix", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == ("error: The tfteach kernel needs ipykernel, which is not installed: "
                   "pip install ipykernel")
    assert not (tmp_path / "share").exists()          # nothing half-installed


def _small_export():
    g = tf.Graph()
    with g.as_default():
        tf.add(tf.constant(1.0, name="a"), tf.constant(2.0, name="b"), name="c")
    return graph_export.export_graph(g)


def test_graph_without_dot_says_install_graphviz(monkeypatch):
    monkeypatch.setattr(graph_dot.shutil, "which", lambda name: None)
    bundle = mime_bundle(_small_export())
    assert "image/svg+xml" not in bundle
    last = bundle["text/plain"].splitlines()[-1]
    assert last == "(no picture: %s)" % install_hints.DOT_HINT
    assert "apt-get install graphviz" in last


@pytest.mark.skipif(not graph_dot.has_dot(), reason="Graphviz's dot is not installed")
def test_graph_with_dot_has_a_picture_and_no_hint():
    bundle = mime_bundle(_small_export())
    assert "image/svg+xml" in bundle
    assert "no picture" not in bundle["text/plain"]


def test_widgets_missing_is_said_once(monkeypatch, capsys):
    from tfteach.notebook import graph_widgets
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    monkeypatch.setattr(graph_widgets, "_widgets_missing_said", [])

    class View:             # controls() gives up before reading anything else
        pass
    assert graph_widgets.controls(View()) is None
    assert graph_widgets.controls(View()) is None
    err = capsys.readouterr().err
    assert err.count("pip install ipywidgets") == 1
