"""tf.train.Checkpoint files against TensorFlow's: tfteach's checkpoint of a module tree
(nested modules, a list, a dict) is restored by TensorFlow's tf.train.Checkpoint with
`assert_consumed()`, and TensorFlow's is restored by tfteach's, values compared.

TensorFlow runs eagerly in a child process: the reference tests of this process switch
TensorFlow to graph mode for good (tf_reference.tensorflow_v1), and tf.train.Checkpoint
is TF 2's eager API.
"""
import importlib.util
import os
import textwrap

import numpy as np
import pytest

from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

# The same module tree, written for TensorFlow and for tfteach (`tf` is either).
MODEL = textwrap.dedent("""
    class Dense(tf.Module):
        def __init__(self, w, b, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(w, name="w")
            self.b = tf.Variable(b, name="b")

    class Net(tf.Module):
        def __init__(self, seed):
            super().__init__()
            r = np.random.RandomState(seed)
            self.layers = [Dense(r.randn(3, 4).astype(np.float32), r.randn(4).astype(np.float32)),
                           Dense(r.randn(4, 2).astype(np.float32), r.randn(2).astype(np.float32))]
            self.extras = {"scale": tf.Variable(r.randn(), dtype=tf.float32, name="scale"),
                           "steps": tf.Variable(np.int64(seed), name="steps")}

        def values(self):
            return {"w0": self.layers[0].w.numpy().tolist(), "b1": self.layers[1].b.numpy().tolist(),
                    "scale": float(self.extras["scale"].numpy()),
                    "steps": int(self.extras["steps"].numpy())}
""")


def _run_tensorflow(script):
    code = "import json, os, sys\nimport numpy as np\nimport tensorflow as tf\n" + MODEL + \
        textwrap.dedent(script)
    return eager_tensorflow_json(code)


def _tfteach_net(tf, seed):
    namespace = {"tf": tf, "np": np}
    exec(MODEL, namespace)               # noqa: S102 - the shared test model
    return namespace["Net"](seed)


def test_tensorflow_restores_tfteach_checkpoint(eager, tmp_path):
    tf = eager
    net = _tfteach_net(tf, seed=1)
    path = tf.train.Checkpoint(model=net).save(str(tmp_path / "ckpt"))
    assert os.path.basename(path) == "ckpt-1"
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    got = _run_tensorflow("""
        net = Net(seed=2)                            # other values, then restored
        status = tf.train.Checkpoint(model=net).restore(tf.train.latest_checkpoint(%r))
        status.assert_consumed()
        print(json.dumps(net.values()))
    """ % str(tmp_path))
    assert got == net.values()


def test_tfteach_restores_tensorflow_checkpoint(eager, tmp_path):
    tf = eager
    expected = _run_tensorflow("""
        net = Net(seed=3)
        manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=net), %r, max_to_keep=2)
        manager.save()
        print(json.dumps(net.values()))
    """ % str(tmp_path))
    net = _tfteach_net(tf, seed=4)
    assert net.values() != expected
    checkpoint = tf.train.Checkpoint(model=net)
    checkpoint.restore(tf.train.latest_checkpoint(str(tmp_path))).assert_consumed()
    assert net.values() == expected
    assert int(checkpoint.save_counter.numpy()) == 1          # TF's counter, restored


def test_checkpoint_manager_keeps_the_last_ones(eager, tmp_path):
    tf = eager
    v = tf.Variable(0.0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=2)
    for i in range(3):
        v.assign(float(i))
        manager.save()
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-2", "ckpt-3"]
    assert not (tmp_path / "ckpt-1.index").exists()
    v.assign(-1.0)
    tf.train.Checkpoint(v=v).restore(manager.latest_checkpoint)
    assert float(v.numpy()) == 2.0
    status = tf.train.Checkpoint(other=tf.Variable(1.0)).restore(manager.latest_checkpoint)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    with pytest.raises(ValueError, match="was expecting a trackable object"):
        tf.train.Checkpoint(model=3)


def test_objects_naming_their_own_children(eager, tmp_path):
    tf = eager

    class Slots:                       # not a Module: names its children itself
        def __init__(self):
            self.hidden = {"m": tf.Variable([1.0, 2.0]), "v": tf.Variable(3.0)}

        def _checkpoint_dependencies(self):
            return sorted(self.hidden.items())

    slots = Slots()
    path = tf.train.Checkpoint(opt=slots).write(str(tmp_path / "c"))
    assert sorted(n for n, _ in tf.train.list_variables(path)) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "opt/m/.ATTRIBUTES/VARIABLE_VALUE",
        "opt/v/.ATTRIBUTES/VARIABLE_VALUE"]
    slots.hidden["v"].assign(0.0)
    tf.train.Checkpoint(opt=slots).restore(path).assert_consumed()
    assert float(slots.hidden["v"].numpy()) == 3.0


def test_restoring_a_missing_path_or_a_directory_fails_as_tensorflow(eager, tmp_path):
    # Checkpoint.restore reads through NewCheckpointReader: its errors. (TF 2 prefixes
    # "Error when restoring from checkpoint or SavedModel at PATH: " and adds a line
    # "Please double-check that the path is correct ...", which 1.15 had not.)
    tf = eager
    tf.train.Checkpoint(v=tf.Variable([1.0])).save(str(tmp_path / "ckpt"))
    paths = [str(tmp_path / "nope" / "ckpt-1"), str(tmp_path)]
    theirs = _run_tensorflow("""
        found = []
        for path in %r:
            try:
                tf.train.Checkpoint(v=tf.Variable([0.0])).restore(path)
            except tf.errors.OpError as e:
                found.append([type(e).__name__, e.message.replace(
                    "Error when restoring from checkpoint or SavedModel at %%s: " %% path, "")
                    .replace("FAILED_PRECONDITION: ", "Failed precondition: ")
                    .splitlines()[0]])
        print(json.dumps(found))
    """ % paths)
    ours = []
    for path in paths:
        with pytest.raises(tf.errors.OpError) as info:
            tf.train.Checkpoint(v=tf.Variable([0.0])).restore(path)
        ours.append([type(info.value).__name__, info.value.message])
    assert ours[0] == ["NotFoundError", "Unsuccessful TensorSliceReader constructor: Failed "
                       "to find any matching files for " + paths[0]]
    assert ours[1][0] == "DataLossError"
    assert ours == theirs
