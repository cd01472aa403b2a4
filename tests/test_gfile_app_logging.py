"""tf.gfile, tf.app (flags and run) and tf.logging: TF 1.15's behaviour, and tf.app.run
in a real notebook kernel (Jupyter's own argv must not break it)."""
import os
import subprocess
import sys
import textwrap

import pytest

import tfteach as tf
from tfteach.app import flags as flags_module


def test_gfile_files_and_directories(tmp_path):
    d = str(tmp_path)
    gf = tf.gfile
    gf.MakeDirs(os.path.join(d, "a", "b"))
    assert gf.IsDirectory(os.path.join(d, "a")) and not gf.Exists(os.path.join(d, "x"))
    with gf.GFile(os.path.join(d, "a", "f.txt"), "w") as f:
        f.write("line 1\n\u4e2d\u6587\n")
    with gf.GFile(os.path.join(d, "a", "f.txt")) as f:
        assert list(f) == ["line 1\n", "\u4e2d\u6587\n"]
    with gf.FastGFile(os.path.join(d, "a", "f.txt"), "rb") as f:
        assert f.read(4) == b"line"
        f.seek(0)
        assert f.readline() == b"line 1\n" and f.tell() == 7
    assert gf.Stat(os.path.join(d, "a", "f.txt")).length == len("line 1\n\u4e2d\u6587\n".encode())
    assert gf.Glob(os.path.join(d, "a", "*.txt")) == [os.path.join(d, "a", "f.txt")]
    assert sorted(gf.ListDirectory(os.path.join(d, "a"))) == ["b", "f.txt"]
    gf.Copy(os.path.join(d, "a", "f.txt"), os.path.join(d, "g.txt"))
    with pytest.raises(tf.errors.AlreadyExistsError):
        gf.Copy(os.path.join(d, "a", "f.txt"), os.path.join(d, "g.txt"))
    gf.Rename(os.path.join(d, "g.txt"), os.path.join(d, "h.txt"))
    assert list(gf.Walk(d)) == [(d, ["a"], ["h.txt"]),
                                (os.path.join(d, "a"), ["b"], ["f.txt"]),
                                (os.path.join(d, "a", "b"), [], [])]
    gf.Remove(os.path.join(d, "h.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        gf.Remove(os.path.join(d, "h.txt"))
    with pytest.raises(tf.errors.NotFoundError):
        gf.ListDirectory(os.path.join(d, "missing"))
    with pytest.raises(tf.errors.AlreadyExistsError):
        gf.MkDir(os.path.join(d, "a"))
    missing = gf.GFile(os.path.join(d, "missing.txt"))     # opened lazily, as TF
    with pytest.raises(tf.errors.NotFoundError):
        missing.read()
    gf.DeleteRecursively(os.path.join(d, "a"))
    assert not gf.Exists(os.path.join(d, "a"))
    with pytest.raises(tf.errors.UnimplementedError):
        gf.Exists("gs://bucket/file")


@pytest.fixture
def fresh_flags(monkeypatch):
    monkeypatch.setattr(flags_module, "FLAGS", flags_module.FlagValues())
    # A script's flags: this process may hold an IPython shell that another test file
    # made (pytest-xdist runs the files in any order), where a redefinition is allowed.
    # The notebook's rules have their own test, in a real kernel (below).
    monkeypatch.setattr(flags_module, "in_notebook", lambda: False)
    return flags_module


def test_flags_parse_like_absl(fresh_flags):
    f = fresh_flags
    f.DEFINE_string("data_dir", "/tmp/data", "where the data is")
    f.DEFINE_integer("steps", 10, "training steps")
    f.DEFINE_float("rate", 0.1, "learning rate")
    f.DEFINE_boolean("fake", False, "fake data")
    f.DEFINE_boolean("shuffle", True, "shuffle")
    f.DEFINE_list("layers", "3,4", "sizes")
    rest = f.FLAGS(["prog", "--steps=5", "--rate", "0.5", "--fake", "--noshuffle", "pos",
                    "--layers=1,2", "--", "--steps=9"])
    assert rest == ["prog", "pos", "--steps=9"]
    assert (f.FLAGS.data_dir, f.FLAGS.steps, f.FLAGS.rate, f.FLAGS.fake,
            f.FLAGS.shuffle, f.FLAGS.layers) == ("/tmp/data", 5, 0.5, True, False, ["1", "2"])
    with pytest.raises(f.UnrecognizedFlagError, match="Unknown command line flag 'f'"):
        f.FLAGS(["prog", "-f", "kernel.json"])
    assert f.FLAGS(["prog", "-f", "kernel.json"], known_only=True) == ["prog", "-f",
                                                                       "kernel.json"]
    with pytest.raises(f.IllegalFlagValueError):
        f.FLAGS(["prog", "--steps=many"])
    with pytest.raises(f.DuplicateFlagError):
        f.DEFINE_integer("steps", 1, "again")


_SCRIPT = textwrap.dedent("""
    import tfteach as tf
    tf.app.flags.DEFINE_integer("steps", 3, "steps")
    FLAGS = tf.app.flags.FLAGS
    def main(argv):
        print("steps", FLAGS.steps, "argv", argv[1:])
        return 4
    if __name__ == "__main__":
        tf.app.run()
""")


def test_app_run_in_a_script_parses_and_exits_with_mains_value(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    done = subprocess.run([sys.executable, str(script), "--steps=7", "extra"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 4 and done.stdout == "steps 7 argv ['extra']\n"
    bad = subprocess.run([sys.executable, str(script), "--nope"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1
    assert "FATAL Flags parsing error: Unknown command line flag 'nope'" in bad.stderr


def test_app_run_in_a_notebook_kernel_ignores_jupyters_arguments():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    cells = [_SCRIPT.replace('if __name__ == "__main__":\n    ', ""),
             "print(tf.app.run(main))",
             # the cell run again: the flag is redefined, not a DuplicateFlagError
             _SCRIPT.replace('if __name__ == "__main__":\n    tf.app.run()', "")]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=240, kernel_name="python3").execute()
    texts = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
    assert texts[0].startswith("steps 3 argv ['-f', ")         # Jupyter's own argv
    assert texts[1].endswith("4\n")                            # main's value, no exit


def test_logging_prints_like_tensorflow_1_15(capsys):
    old = tf.logging.get_verbosity()
    try:
        assert old == tf.logging.WARN                     # TF 1.15's default
        tf.logging.info("hidden")
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("Restoring parameters from %s", "model.ckpt")
        for i in range(5):
            tf.logging.log_every_n(tf.logging.INFO, "every %d", 2, i)
            tf.logging.log_first_n(tf.logging.INFO, "first %d", 1, i)
    finally:
        tf.logging.set_verbosity(old)
    captured = capsys.readouterr()      # stdout in an interactive session, else stderr
    assert (captured.out + captured.err).splitlines() == [
        "INFO:tensorflow:Restoring parameters from model.ckpt",
        "INFO:tensorflow:every 0", "INFO:tensorflow:first 0",
        "INFO:tensorflow:every 2", "INFO:tensorflow:every 4"]
