"""`tf.train.write_graph`: a Graph or GraphDef written as a `.pb`/`.pbtxt` file."""
import os

from google.protobuf import text_format

__all__ = ["write_graph"]


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes the GraphDef to `logdir/name` (text format unless `as_text=False`) through
    a temporary file renamed into place; returns the path. As TF 1.15."""
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    if not os.path.isdir(logdir):
        os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    data = (text_format.MessageToString(graph_def).encode("utf-8") if as_text
            else graph_def.SerializeToString())
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path
