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

docs/saving.md explains the formats. Reading only parses bytes: nothing is unpickled or
evaluated, and every checksum is checked.
"""
