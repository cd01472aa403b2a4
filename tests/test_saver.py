"""tf.train.Saver and the checkpoint helpers, within tfteach (TensorFlow 1.15's
behaviour; tests/test_checkpoint_reference.py compares with TensorFlow itself)."""
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfteach as tf
from device_helpers import virtual_gpus  # noqa: F401 (fixture)


def _two_variables():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = tf.Variable(3, name="b")
    return w, b


def test_save_writes_tensorflows_files_and_restore_reads_them(tmp_path):
    w, b = _two_variables()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(w, [[5.0, 6.0], [7.0, 8.0]]))
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=12,
                          write_meta_graph=False)
    assert path == str(tmp_path / "model.ckpt-12")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.ckpt-12.data-00000-of-00001",
                                            "model.ckpt-12.index"]
    with tf.Session() as sess:           # a new session: nothing initialized
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), [[5, 6], [7, 8]])
        assert sess.run(b) == 3


def test_the_save_subgraph_has_tensorflows_names():
    _two_variables()
    saver = tf.train.Saver()
    sd = saver.saver_def
    assert (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name) == (
        "save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert sd.max_to_keep == 5 and sd.keep_checkpoint_every_n_hours == 10000.0
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("save/SaveV2").type == "SaveV2"
    assert graph.get_operation_by_name("save/RestoreV2").type == "RestoreV2"
    # one Assign per variable, in the sorted order of their names: b, then w
    assert graph.get_operation_by_name("save/Assign").inputs[0].op.name == "b"
    assert graph.get_operation_by_name("save/Assign_1").inputs[0].op.name == "w"
    assert tf.train.Saver().saver_def.restore_op_name == "save_1/restore_all"


def test_global_step_tensor_and_padded_step(tmp_path):
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver(pad_step_number=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(step, 42))
        path = saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    assert path == str(tmp_path / "m-00000042")


def test_max_to_keep_deletes_the_oldest_and_the_state_file_lists_the_rest(tmp_path):
    v = tf.Variable(0.0, name="v")
    saver = tf.train.Saver(max_to_keep=2)
    prefix = str(tmp_path / "m")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(4):
            sess.run(tf.assign(v, float(step)))
            saver.save(sess, prefix, global_step=step, write_meta_graph=False)
    assert saver.last_checkpoints == [prefix + "-2", prefix + "-3"]
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".index")) == [
        "m-2.index", "m-3.index"]
    with open(tmp_path / "checkpoint") as f:
        assert f.read() == ('model_checkpoint_path: "%s-3"\n'
                            'all_model_checkpoint_paths: "%s-2"\n'
                            'all_model_checkpoint_paths: "%s-3"\n' % (prefix, prefix, prefix))
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-3"
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == [prefix + "-2", prefix + "-3"]
    assert tf.train.load_variable(str(tmp_path), "v") == 3.0
    assert tf.train.load_variable(prefix + "-2", "v:0") == 2.0


def test_max_to_keep_none_or_zero_keeps_everything(tmp_path):
    tf.Variable(0.0, name="v")
    saver = tf.train.Saver(max_to_keep=0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".index")]) == 3
    assert saver.last_checkpoints == []


def test_keep_checkpoint_every_n_hours_keeps_old_ones(tmp_path, monkeypatch):
    import tfteach.train.saver as saver_module
    clock = [1000.0]
    monkeypatch.setattr(saver_module.time, "time", lambda: clock[0])
    tf.Variable(0.0, name="v")
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step, hours in enumerate([0.5, 1.2, 1.5, 2.6]):
            clock[0] = 1000.0 + hours * 3600
            saver.save(sess, str(tmp_path / "m"), global_step=step, write_meta_graph=False)
    # m-1 (1.2 h) is past the first hour mark, m-2 (1.5 h) is not past the second.
    kept = sorted(f[:-6] for f in os.listdir(tmp_path) if f.endswith(".index"))
    assert kept == ["m-1", "m-3"]


def test_recover_last_checkpoints_lets_max_to_keep_delete_them(tmp_path):
    tf.Variable(0.0, name="v")
    first = tf.train.Saver(max_to_keep=10)
    prefix = str(tmp_path / "m")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            first.save(sess, prefix, global_step=step, write_meta_graph=False)
        second = tf.train.Saver(max_to_keep=2)      # e.g. after a restart
        state = tf.train.get_checkpoint_state(str(tmp_path))
        second.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        assert second.last_checkpoints == [prefix + "-0", prefix + "-1", prefix + "-2"]
        second.save(sess, prefix, global_step=3, write_meta_graph=False)
    # As in TF 1.15, each save deletes at most one checkpoint: the oldest.
    assert second.last_checkpoints == [prefix + "-1", prefix + "-2", prefix + "-3"]
    assert not os.path.exists(prefix + "-0.index") and os.path.exists(prefix + "-1.index")



def test_partial_restore_with_a_list_and_renamed_restore_with_a_dict(tmp_path):
    w, b = _two_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf.reset_default_graph()
    w2 = tf.Variable(tf.zeros([2, 2]), name="w")
    other = tf.Variable(1.0, name="other")
    renamed = tf.Variable(0, name="renamed_b")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver([w2]).restore(sess, path)
        tf.train.Saver({"b": renamed}).restore(sess, path)
        np.testing.assert_array_equal(sess.run(w2), [[1, 2], [3, 4]])
        assert sess.run(renamed) == 3 and sess.run(other) == 1.0


def test_moving_average_shadows_restore_into_the_live_variables(tmp_path):
    v = tf.Variable(0.0, name="v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([v])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v, 10.0))
        sess.run(update)                                 # shadow = 0.5*0 + 0.5*10 = 5
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    assert tf.train.load_variable(path, "v/ExponentialMovingAverage") == 5.0
    tf.reset_default_graph()
    v = tf.Variable(0.0, name="v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    assert ema.variables_to_restore() == {"v/ExponentialMovingAverage": v}
    with tf.Session() as sess:
        tf.train.Saver(ema.variables_to_restore()).restore(sess, path)
        assert sess.run(v) == 5.0


def test_a_shape_mismatch_restores_nothing(tmp_path):
    a = tf.Variable([1.0, 2.0], name="a")
    z = tf.Variable([1.0, 2.0, 3.0], name="z")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf.reset_default_graph()
    a = tf.Variable([0.0, 0.0], name="a")
    z = tf.Variable([0.0, 0.0], name="z")              # was [3] in the checkpoint
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            saver.restore(sess, path)
        assert "Assign requires shapes of both tensors to match. lhs shape= [2] rhs " \
               "shape= [3]" in str(info.value)
        assert str(info.value).startswith("Restoring from checkpoint failed. This is most "
                                          "likely due to a mismatch between the current "
                                          "graph and the graph from the checkpoint.")
        np.testing.assert_array_equal(sess.run(a), [0, 0])      # not half restored
    tf.reset_default_graph()
    z = tf.Variable(tf.zeros([3, 1]), name="z")
    with tf.Session() as sess:                             # reshape=True: same size
        tf.train.Saver([z], reshape=True).restore(sess, path)
        np.testing.assert_array_equal(sess.run(z), [[1], [2], [3]])


def test_a_missing_variable_is_tensorflows_not_found_error(tmp_path):
    tf.Variable(1.0, name="a")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf.reset_default_graph()
    tf.Variable(0.0, name="a")
    tf.Variable(0.0, name="not_saved")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError) as info:
            saver.restore(sess, path)
    message = str(info.value)
    assert "a Variable name or other graph key that is missing from the checkpoint" in message
    assert "Key not_saved not found in checkpoint" in message


def test_restore_errors_for_bad_paths(tmp_path):
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="Can't load save_path when it is None."):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="The passed save_path is not a valid "
                                             "checkpoint: " + str(tmp_path / "nope")):
            saver.restore(sess, str(tmp_path / "nope"))
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, "
                                             "can't save."):
            saver.save(sess, str(tmp_path / "a" / "b" / "m"))
        with pytest.raises(ValueError, match="'latest_filename' must not contain path"):
            saver.save(sess, str(tmp_path / "m"), latest_filename="x/checkpoint")


def test_saving_an_uninitialized_variable_fails_like_tensorflow(tmp_path):
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value a"):
            saver.save(sess, str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "checkpoint")


def test_saver_argument_errors():
    with pytest.raises(ValueError, match="No variables to save"):
        tf.train.Saver()
    with tf.Session() as sess:
        assert tf.train.Saver(allow_empty=True).save(sess, "/nonexistent/x",
                                                     write_meta_graph=False) is None
        with pytest.raises(TypeError, match="'sess' must be a Session; None"):
            tf.train.Saver(allow_empty=True).save(None, "/nonexistent/x")
    v = tf.Variable(1.0, name="v")
    with pytest.raises(ValueError, match="At least two variables have the same name: v"):
        tf.train.Saver([v, v])
    with pytest.raises(TypeError):
        tf.train.Saver({"x": tf.constant(1.0)})
    with pytest.raises(ValueError, match="cannot be deferred"):
        tf.train.Saver([v], defer_build=True)


def test_save_relative_paths_and_a_moved_directory(tmp_path):
    tf.Variable(7.0, name="v")
    saver = tf.train.Saver(save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "run" / "m"), write_meta_graph=False)
    with open(tmp_path / "run" / "checkpoint") as f:
        assert f.read() == 'model_checkpoint_path: "m"\nall_model_checkpoint_paths: "m"\n'
    os.rename(tmp_path / "run", tmp_path / "moved")
    assert tf.train.latest_checkpoint(str(tmp_path / "moved")) == str(tmp_path / "moved" / "m")
    assert tf.train.load_variable(str(tmp_path / "moved"), "v") == 7.0


def test_checkpoint_state_helpers(tmp_path):
    d = str(tmp_path)
    assert tf.train.get_checkpoint_state(d) is None
    assert tf.train.latest_checkpoint(d) is None
    tf.train.update_checkpoint_state(d, os.path.join(d, "b"), [os.path.join(d, "a")])
    state = tf.train.get_checkpoint_state(d)
    assert state.model_checkpoint_path == os.path.join(d, "b")
    assert list(state.all_model_checkpoint_paths) == [os.path.join(d, "a"), os.path.join(d, "b")]
    assert tf.train.latest_checkpoint(d) is None          # named, but no files
    assert not tf.train.checkpoint_exists(os.path.join(d, "b"))
    proto = tf.train.generate_checkpoint_state_proto("rel", "rel/m-2", ["rel/m-1"])
    assert (proto.model_checkpoint_path, list(proto.all_model_checkpoint_paths)) == (
        "m-2", ["m-1", "m-2"])
    with pytest.raises(ValueError, match="Checkpoint timestamps, if provided, must match"):
        tf.train.generate_checkpoint_state_proto(d, "m", ["m"], [1.0, 2.0])
    with open(os.path.join(d, "checkpoint"), "w") as f:
        f.write("this is { not a checkpoint state")
    assert tf.train.get_checkpoint_state(d) is None        # logged and ignored, as TF


def test_checkpoint_reader(tmp_path):
    w, b = _two_variables()
    tf.Variable(tf.zeros([3], tf.float64), name="scope/s")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_shape_map() == {"w": [2, 2], "b": [], "scope/s": [3]}
    assert reader.get_variable_to_dtype_map() == {"w": tf.float32, "b": tf.int32,
                                                  "scope/s": tf.float64}
    assert reader.has_tensor("w") and not reader.has_tensor("nope")
    np.testing.assert_array_equal(reader.get_tensor("w"), [[1, 2], [3, 4]])
    assert reader.debug_string() == (b"b (DT_INT32) []\nscope/s (DT_DOUBLE) [3]\n"
                                     b"w (DT_FLOAT) [2,2]\n")
    with pytest.raises(tf.errors.NotFoundError, match="Key nope not found in checkpoint"):
        reader.get_tensor("nope")
    assert tf.train.list_variables(path) == [("b", []), ("scope/s", [3]), ("w", [2, 2])]
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files "
                                                      "for " + str(tmp_path / "zzz")):
        tf.train.NewCheckpointReader(str(tmp_path / "zzz"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints"):
        tf.train.load_checkpoint(str(empty))


def test_restore_detects_a_corrupted_checkpoint(tmp_path):
    v = tf.Variable(np.arange(8, dtype=np.float32), name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        with open(path + ".data-00000-of-00001", "r+b") as f:
            f.seek(5)
            f.write(b"\xff")
        sess.run(tf.assign(v, tf.zeros([8])))
        with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
            saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(v), np.zeros(8))


_KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    import tfteach as tf
    import tfteach.io.tensor_bundle as tb
    v = tf.Variable(1.0, name="v")
    saver = tf.train.Saver()
    real_replace = os.replace
    def replace(src, dst):
        if dst.endswith("m-2.index"):
            os.kill(os.getpid(), signal.SIGKILL)      # dies before the index is in place
        return real_replace(src, dst)
    tb.os.replace = replace
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, sys.argv[1] + "/m", global_step=1, write_meta_graph=False)
        sess.run(tf.assign(v, 2.0))
        saver.save(sess, sys.argv[1] + "/m", global_step=2, write_meta_graph=False)
""")


def test_a_process_killed_mid_save_leaves_the_previous_checkpoint(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.getcwd() + os.pathsep + os.environ.get("PYTHONPATH",
                                                                                 ""))
    result = subprocess.run([sys.executable, "-c", _KILLED_SAVE, str(tmp_path)], env=env,
                            capture_output=True, timeout=300)
    assert result.returncode == -signal.SIGKILL, result.stderr.decode()[-2000:]
    latest = tf.train.latest_checkpoint(str(tmp_path))
    assert latest == str(tmp_path / "m-1")
    assert not os.path.exists(tmp_path / "m-2.index")
    v = tf.Variable(0.0, name="v")
    with tf.Session() as sess:
        tf.train.Saver().restore(sess, latest)
        assert sess.run(v) == 1.0


def test_a_saver_from_a_saver_def_runs_the_graphs_save_ops(tmp_path):
    v = tf.Variable(2.0, name="v")
    built = tf.train.Saver()
    again = tf.train.Saver(saver_def=built.saver_def)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = again.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        sess.run(tf.assign(v, 5.0))
        again.restore(sess, path)
        assert sess.run(v) == 2.0
    scoped = tf.train.Saver(saver_def=built.saver_def, name="imported")
    assert scoped.saver_def.restore_op_name == "imported/save/restore_all"
    assert built.saver_def.restore_op_name == "save/restore_all"
    with pytest.raises(ValueError, match="saver_def must specify the save_tensor_name"):
        tf.train.Saver(saver_def=type(built.saver_def)(restore_op_name="x"))


def test_save_writes_a_meta_graph_that_import_meta_graph_restores(tmp_path):
    pytest.importorskip("tfteach.framework.meta_graph")   # framework/meta_graph.py (graph I/O)
    v = tf.Variable([1.0, 2.0], name="v")
    tf.add_to_collection("doubled", v * 2)
    saver = tf.train.Saver(max_to_keep=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "m"), global_step=1)
        sess.run(tf.assign(v, [3.0, 4.0]))
        path = saver.save(sess, str(tmp_path / "m"), global_step=2)
    assert os.path.exists(path + ".meta")
    assert not os.path.exists(first + ".meta")          # max_to_keep deletes it too
    tf.reset_default_graph()
    with tf.Session() as sess:
        restorer = tf.train.import_meta_graph(path + ".meta")
        restorer.restore(sess, path)
        np.testing.assert_array_equal(sess.run(tf.get_collection("doubled")[0]), [6, 8])


def test_a_graph_tensorflow_cannot_express_still_saves_its_checkpoint(tmp_path, capsys):
    pytest.importorskip("tfteach.framework.graph_def")
    tf.Variable(1.0, name="v")
    tf.reduce_logsumexp(tf.constant([1.0, 2.0]))      # tfteach's own ReduceLogSumExp op
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    assert os.path.exists(path + ".index") and not os.path.exists(path + ".meta")
    captured = capsys.readouterr()
    assert "m.meta was not written: Cannot write op" in captured.out + captured.err
    assert tf.train.load_variable(path, "v") == 1.0


def test_a_graph_with_a_while_loop_saves_its_meta_graph(tmp_path):
    # Loops are written as TF 1.15's frames (framework/loop_frames.py): the .meta is
    # written, and it imports back with a loop that runs.
    pytest.importorskip("tfteach.framework.graph_def")
    tf.Variable(1.0, name="v")
    _, total = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + 2.0),
                             [tf.constant(0), tf.constant(0.5)], name="loop")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    assert os.path.exists(path + ".meta")
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(total.name) == 6.5


def test_the_notes_save_restore_program_in_the_current_directory(tmp_path, monkeypatch):
    # Note 004 ("tf.train.Saver"): relative prefixes, the checkpoint state they print,
    # the directory the first save creates, and the moving average 0.099999905.
    monkeypatch.chdir(tmp_path)
    v = tf.Variable(0, dtype=tf.float32, name="v")
    ema = tf.train.ExponentialMovingAverage(0.99)
    maintain_average_op = ema.apply([v])
    saver = tf.train.Saver()
    sess = tf.InteractiveSession()
    sess.run(tf.global_variables_initializer())
    sess.run(tf.assign(v, 10))
    sess.run(maintain_average_op)
    assert saver.save(sess, "./ema_test_model") == "./ema_test_model"
    assert saver.save(sess, "saved_models/model.ckpt", 7) == "saved_models/model.ckpt-7"
    sess.close()
    ckpt = tf.train.get_checkpoint_state("./")
    assert str(ckpt) == ('model_checkpoint_path: "./ema_test_model"\n'
                         'all_model_checkpoint_paths: "./ema_test_model"\n')
    assert tf.train.latest_checkpoint("./") == "./ema_test_model"
    assert tf.train.latest_checkpoint("saved_models") == "saved_models/model.ckpt-7"
    tf.reset_default_graph()
    v = tf.Variable(0, dtype=tf.float32, name="v")
    sess = tf.InteractiveSession()
    tf.train.Saver({"v/ExponentialMovingAverage": v}).restore(sess, "./ema_test_model")
    assert sess.run(v) == np.float32(0.099999905)
    sess.close()
    reader = tf.train.NewCheckpointReader("ema_test_model")
    assert reader.get_variable_to_shape_map() == {"v": [], "v/ExponentialMovingAverage": []}


def test_the_notes_gfile_import_path():
    from tfteach.python.platform import gfile
    assert gfile.FastGFile is tf.gfile.FastGFile and gfile.Exists is tf.gfile.Exists


def test_init_from_checkpoint_maps_scopes_and_variables(tmp_path):
    with tf.variable_scope("old"):
        tf.get_variable("w", initializer=tf.constant([[1.0, 2.0]]))
        tf.get_variable("b", initializer=tf.constant([3.0]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, str(tmp_path / "m"), write_meta_graph=False)
    tf.reset_default_graph()
    with tf.variable_scope("new"):
        w = tf.get_variable("w", [1, 2])
        b = tf.get_variable("b", [1])
    lone = tf.Variable([0.0], name="lone")
    tf.train.init_from_checkpoint(str(tmp_path), {"old/": "new/", "old/b": lone})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), [[1, 2]])
        assert sess.run(b) == 3.0 and sess.run(lone) == 3.0
    with pytest.raises(ValueError, match="Tensor old/zz is not found in"):
        tf.train.init_from_checkpoint(str(tmp_path), {"old/zz": lone})
    with pytest.raises(ValueError, match="Shape of variable new/b:0 .* doesn't match"):
        tf.train.init_from_checkpoint(str(tmp_path), {"old/w": b})
    with pytest.raises(ValueError, match="should map to scope only"):
        tf.train.init_from_checkpoint(str(tmp_path), {"old/w": "somewhere/"})


def test_variables_on_a_gpu_save_and_restore_through_the_cpu(tmp_path, virtual_gpus):
    virtual_gpus(1)
    with tf.device("/gpu:0"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
        saver = tf.train.Saver()
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("save/RestoreV2").device == "/device:CPU:0"  # as TF
    config = tf.ConfigProto(allow_soft_placement=True)   # SaveV2 has no GPU kernel
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        sess.run(tf.assign(w, tf.zeros([2, 3])))
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(2, 3))
