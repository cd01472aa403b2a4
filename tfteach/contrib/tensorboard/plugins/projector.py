"""`tf.contrib.tensorboard.plugins.projector`: tells TensorBoard's Embedding Projector
which checkpointed tensors to show (note 000's embedding section).

`ProjectorConfig` / `EmbeddingInfo` are TensorBoard's own protobuf messages;
`visualize_embeddings(writer, config)` writes `projector_config.pbtxt` into the writer's
logdir, where the projector looks for it, as TF 1.15 does.
"""
import os

from google.protobuf import text_format
from tensorboard.plugins.projector.projector_config_pb2 import (EmbeddingInfo,  # noqa: F401
                                                                ProjectorConfig,
                                                                SpriteMetadata)

__all__ = ["ProjectorConfig", "EmbeddingInfo", "SpriteMetadata", "visualize_embeddings",
           "PROJECTOR_FILENAME"]

PROJECTOR_FILENAME = "projector_config.pbtxt"


def visualize_embeddings(summary_writer, config):
    """Writes `config` as text to `<logdir>/projector_config.pbtxt`."""
    logdir = summary_writer.get_logdir()
    if logdir is None:
        raise ValueError("Summary writer must have a logdir")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, PROJECTOR_FILENAME), "w") as f:
        f.write(text_format.MessageToString(config))
