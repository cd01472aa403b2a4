"""File formats only, no TensorFlow API (DESIGN.md): each module reads and writes one of
TensorFlow's on-disk formats byte for byte, so files move between tfteach and TensorFlow.
The APIs in train/, summary/ and framework/ use them.

  - tf_protos: TensorFlow's protocol buffers (GraphDef, MetaGraphDef, Event, Summary,
    ...) as the `tensorboard` package ships them;
  - records: TFRecord framing with masked CRC-32C (event files);
  - tfrecord: TFRecord files (raw, ZLIB, GZIP): iterate_records, RecordFileReader/Writer,
    with TensorFlow's DataLossError for corrupt and truncated records;
  - crc32c: CRC-32C and TensorFlow's "masked" CRC stored in its files;
  - table: the sorted key/value table (LevelDB's SSTable layout) behind `.index` files;
  - bundle_protos: the protobuf messages TensorFlow does not ship in a package
    (BundleHeaderProto, BundleEntryProto, CheckpointState), from their field numbers;
  - tensor_bundle: the V2 checkpoint, `PREFIX.index` + `PREFIX.data-00000-of-00001`.

`tf.io` is TensorFlow's public namespace of the same name: its names (TFRecordWriter,
parse_example, decode_raw, ...) are looked up lazily in tfteach/io_api.py, so that the
file-format modules here never import the ops built on them.

docs/saving.md explains the formats. Reading only parses bytes: nothing is unpickled or
evaluated, and every checksum is checked.
"""


def __getattr__(name):
    # tf.io's public names (io_api.py), imported on first use: framework/ imports the
    # format modules of this package, and io_api imports ops/ built on framework/.
    if name.startswith("__") or _is_submodule(name):
        # `from tfteach.io import crc32c` asks for the attribute before it imports the
        # submodule: answering from io_api would import it (and its users) first.
        raise AttributeError(name)
    from tfteach import io_api
    try:
        return getattr(io_api, name)
    except AttributeError:
        raise AttributeError("module 'tensorflow.io' has no attribute '%s'" % name) from None


def _is_submodule(name):
    import importlib.util
    return importlib.util.find_spec("%s.%s" % (__name__, name)) is not None


def __dir__():
    from tfteach import io_api
    return sorted(set(globals()) | set(io_api.__all__))
