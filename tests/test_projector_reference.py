"""TensorBoard's own Embedding Projector plugin reads the files tfteach writes (note 000's
"Embedding projector", lesson 25, docs/tensorboard.md "The projector").

The plugin (`tensorboard.plugins.projector.projector_plugin.ProjectorPlugin`) is run on a
log folder written by tfteach — a Saver checkpoint of the embeddings, the
`projector_config.pbtxt` of `visualize_embeddings`, metadata TSVs and a sprite PNG — and
asked, through its HTTP routes, what the browser would get. It reads checkpoints with
TensorFlow (`tf.train.load_checkpoint`), so this is also TensorFlow reading tfteach's
checkpoint; without TensorFlow the plugin reads no checkpoint at all, and the tests skip.
"""
import json
import os

import numpy as np
import pytest

import tfteach as tf

pytest.importorskip("tensorflow")           # the plugin reads checkpoints with TensorFlow
projector_plugin = pytest.importorskip("tensorboard.plugins.projector.projector_plugin")
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer  # noqa: E402
from tensorboard.plugins import base_plugin  # noqa: E402
from werkzeug import test as werkzeug_test  # noqa: E402
from werkzeug import wrappers  # noqa: E402

pytestmark = pytest.mark.reference

projector = tf.contrib.tensorboard.plugins.projector


class Projector:
    """TensorBoard's projector plugin on `logdir`, answering its routes as the browser asks."""

    def __init__(self, logdir):
        multiplexer = plugin_event_multiplexer.EventMultiplexer()
        multiplexer.AddRunsFromDirectory(logdir)
        multiplexer.Reload()
        context = base_plugin.TBContext(
            logdir=logdir, data_provider=data_provider.MultiplexerDataProvider(multiplexer, logdir))
        self.apps = projector_plugin.ProjectorPlugin(context).get_plugin_apps()

    def get(self, route, **query):
        response = werkzeug_test.Client(self.apps[route], wrappers.Response).get(
            route, query_string=query)
        return response.status_code, response.get_data(), response.mimetype


def save_embeddings(logdir, tables, extra=None):
    """Saves each {name: 2-D array} (and `extra` variables) with one Saver, as lesson 25 does."""
    variables = [tf.Variable(value, name=name) for name, value in tables.items()]
    variables += [tf.Variable(value, name=name) for name, value in (extra or {}).items()]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver(variables).save(sess, os.path.join(logdir, "embeddings.ckpt"))
    return variables


def write_config(logdir, embeddings):
    """embeddings: [(variable, metadata_path, sprite_path or None)] -> projector_config.pbtxt."""
    config = projector.ProjectorConfig()
    for variable, metadata_path, sprite_path in embeddings:
        embedding = config.embeddings.add()
        embedding.tensor_name = variable.name
        embedding.metadata_path = metadata_path
        if sprite_path:
            embedding.sprite.image_path = sprite_path
            embedding.sprite.single_image_dim.extend([2, 2])
    writer = tf.summary.FileWriter(logdir)
    projector.visualize_embeddings(writer, config)
    writer.close()


def test_the_plugin_serves_tfteachs_embeddings_metadata_and_sprite(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    logdir = str(tmp_path)
    rng = np.random.RandomState(0)
    words = rng.randn(6, 4).astype(np.float32)
    hidden = rng.rand(6, 3).astype(np.float32)
    bias = np.arange(5, dtype=np.float32)                 # 1-D: not an embedding
    words_var, hidden_var, _ = save_embeddings(logdir, {"words": words, "hidden": hidden},
                                               extra={"bias": bias})
    (tmp_path / "labels.tsv").write_text("".join("%d\n" % k for k in range(6)))
    (tmp_path / "columns.tsv").write_text("label\tparity\n" + "".join(
        "%d\t%s\n" % (k, "even" if k % 2 == 0 else "odd") for k in range(6)))
    sprite = np.kron(np.arange(9, dtype=np.float32).reshape(3, 3) / 8, np.ones((2, 2)))
    plt.imsave(str(tmp_path / "sprite.png"), sprite, cmap="gray")    # 3x3 cells of 2x2
    write_config(logdir, [(words_var, "labels.tsv", "sprite.png"),
                          (hidden_var, "columns.tsv", None)])

    plugin = Projector(logdir)
    status, body, _ = plugin.get("/runs")
    assert (status, json.loads(body)) == (200, ["."])

    status, body, _ = plugin.get("/info", run=".")
    assert status == 200
    info = json.loads(body)
    assert info["modelCheckpointPath"] == os.path.join(logdir, "embeddings.ckpt")
    shapes = {e["tensorName"]: e["tensorShape"] for e in info["embeddings"]}
    assert shapes == {"words": [6, 4], "hidden": [6, 3]}          # no 'bias': not 2-D
    by_name = {e["tensorName"]: e for e in info["embeddings"]}
    assert by_name["words"]["sprite"] == {"imagePath": "sprite.png", "singleImageDim": [2, 2]}
    assert by_name["hidden"]["metadataPath"] == "columns.tsv"

    for name, table in [("words", words), ("hidden", hidden)]:
        status, body, mimetype = plugin.get("/tensor", run=".", name=name)
        assert (status, mimetype) == (200, "application/octet-stream")
        np.testing.assert_array_equal(np.frombuffer(body, np.float32).reshape(table.shape), table)

    status, body, _ = plugin.get("/metadata", run=".", name="hidden", num_rows=2)
    assert (status, body.decode()) == (200, "label\tparity\n0\teven\n1\todd\n")   # header + 2
    status, body, _ = plugin.get("/metadata", run=".", name="words")
    assert (status, body.decode().split()) == (200, [str(k) for k in range(6)])

    status, body, mimetype = plugin.get("/sprite_image", run=".", name="words")
    assert (status, mimetype) == (200, "image/png")
    assert body == (tmp_path / "sprite.png").read_bytes()
    status, body, _ = plugin.get("/sprite_image", run=".", name="hidden")
    assert status == 400 and b"No sprite image file found" in body


def test_the_notes_metadata_path_is_looked_for_inside_the_log_folder(tmp_path, monkeypatch):
    """Note 000's answer sets metadata_path = os.path.join(LOG_DIR, 'metadata.tsv') with a
    relative LOG_DIR: TensorBoard reads it relative to the config's folder, so it looks for
    logs/logs/metadata.tsv and finds no labels; 'metadata.tsv' is found."""
    monkeypatch.chdir(tmp_path)
    LOG_DIR = "logs"
    os.makedirs(LOG_DIR)
    with open(os.path.join(LOG_DIR, "metadata.tsv"), "w") as f:
        f.write("".join("%d\n" % k for k in range(4)))
    images, = save_embeddings(LOG_DIR, {"images": np.eye(4, 5, dtype=np.float32)})

    write_config(LOG_DIR, [(images, os.path.join(LOG_DIR, "metadata.tsv"), None)])
    status, body, _ = Projector(LOG_DIR).get("/metadata", run=".", name="images")
    assert status == 400
    assert os.path.join("logs", "logs", "metadata.tsv") in body.decode()
    assert "not found" in body.decode()

    write_config(LOG_DIR, [(images, "metadata.tsv", None)])
    status, body, _ = Projector(LOG_DIR).get("/metadata", run=".", name="images")
    assert (status, body.decode().split()) == (200, ["0", "1", "2", "3"])
