"""`%tfscalars`: scalars read from event files (several runs, tag patterns) and drawn
one chart per tag, one line per run."""
import numpy as np
import pytest

import tfteach as tf
from tfteach.notebook import scalars_magic

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def _write(logdir, values_by_tag, start=0):
    writer = tf.summary.FileWriter(str(logdir))
    for tag, values in values_by_tag.items():
        for i, v in enumerate(values):
            writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag=tag, simple_value=v)]),
                               start + i)
    writer.close()


def test_read_scalars_by_run_and_tag_pattern(tmp_path):
    _write(tmp_path / "train", {"loss": [3.0, 2.0, 1.0], "acc": [0.1, 0.5, 0.9]})
    _write(tmp_path / "eval", {"loss": [3.5, 2.5]})
    data = scalars_magic.read_scalars(str(tmp_path))
    assert data == {"eval": {"loss": [(0, 3.5), (1, 2.5)]},
                    "train": {"acc": [(0, pytest.approx(0.1)), (1, 0.5),
                                      (2, pytest.approx(0.9))],
                              "loss": [(0, 3.0), (1, 2.0), (2, 1.0)]}}
    assert scalars_magic.read_scalars(str(tmp_path), ["l*"]) == {
        "eval": {"loss": [(0, 3.5), (1, 2.5)]},
        "train": {"loss": [(0, 3.0), (1, 2.0), (2, 1.0)]}}


def test_summary_ops_output_is_read_back(tmp_path):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [])
    summary = tf.summary.scalar("x2", x * 2.0)
    writer = tf.summary.FileWriter(str(tmp_path))
    with tf.Session() as sess:
        for step in range(4):
            writer.add_summary(sess.run(summary, {x: float(step)}), step)
    writer.close()
    assert scalars_magic.read_scalars(str(tmp_path)) == {
        ".": {"x2": [(0, 0.0), (1, 2.0), (2, 4.0), (3, 6.0)]}}


def test_plot_has_one_chart_per_tag_and_one_line_per_run(tmp_path):
    _write(tmp_path / "a", {"loss": [3.0, 2.0, 1.0], "acc": [0.1, 0.5, 0.9]})
    _write(tmp_path / "b", {"loss": [4.0, 1.0]})
    fig = scalars_magic.plot_scalars(str(tmp_path))
    charts = {ax.get_title(): ax for ax in fig.axes if ax.get_visible()}
    assert sorted(charts) == ["acc", "loss"]
    lines = {line.get_label(): line for line in charts["loss"].get_lines()}
    assert sorted(lines) == ["a", "b"]
    np.testing.assert_array_equal(lines["b"].get_xdata(), [0, 1])
    np.testing.assert_array_equal(lines["b"].get_ydata(), [4.0, 1.0])


def test_magic_messages(tmp_path, capsys):
    scalars_magic.tfscalars("")
    assert "Usage: %tfscalars LOGDIR" in capsys.readouterr().out
    scalars_magic.tfscalars(str(tmp_path / "missing"))
    assert "No such log directory" in capsys.readouterr().out
    _write(tmp_path, {"loss": [1.0]})
    scalars_magic.tfscalars("%s nothing*" % tmp_path)
    assert "No scalar summaries matching nothing* in" in capsys.readouterr().out


def test_magic_is_registered_by_the_extension():
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    scalars_magic.register(shell)
    try:
        assert "tfscalars" in shell.magics_manager.magics["line"]
    finally:
        scalars_magic.unregister(shell)
    assert "tfscalars" not in shell.magics_manager.magics["line"]
