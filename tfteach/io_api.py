"""The public `tf.io` namespace of TF 1.15 (what tfteach has of it).

`tfteach.io` is also tfteach's internal package of file formats (DESIGN.md); its
`__getattr__` forwards TensorFlow's public names to this module. Other families add their
names here in their own block (queues: q, images: img).
"""
from tfteach import gfile  # noqa: F401
from tfteach.python_io import (TFRecordCompressionType, TFRecordOptions,  # noqa: F401
                               TFRecordWriter, tf_record_iterator)
from tfteach.train.graph_io import write_graph  # noqa: F401
from tfteach.ops.parsing_config import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: F401
                                        VarLenFeature)
from tfteach.ops.parsing_ops import (parse_example, parse_single_example,  # noqa: F401
                                     parse_single_sequence_example)
from tfteach.ops.decode_ops import decode_csv, decode_raw  # noqa: F401
from tfteach.ops.tensor_serialization import parse_tensor, serialize_tensor  # noqa: F401

__all__ = ["gfile", "TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "tf_record_iterator", "write_graph", "FixedLenFeature", "FixedLenSequenceFeature",
           "VarLenFeature", "parse_example", "parse_single_example",
           "parse_single_sequence_example", "decode_csv", "decode_raw", "parse_tensor",
           "serialize_tensor"]

# -- queues and file names (helper q's modules; TF 1.15's tf.io has them too) ------------------
from tfteach.ops.data_flow_ops import (PaddingFIFOQueue, PriorityQueue,  # noqa: F401,E402
                                       QueueBase, RandomShuffleQueue)
from tfteach.ops.reader_ops import matching_files, read_file  # noqa: F401,E402
from tfteach.train.input import match_filenames_once  # noqa: F401,E402
__all__ += ["PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue",
            "matching_files", "match_filenames_once", "read_file"]
# -- image codecs (tfteach/image; TF 1.15's tf.io has them too) ------------------------------
from tfteach.image import (decode_and_crop_jpeg, decode_bmp, decode_gif,  # noqa: F401,E402
                           decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png,
                           extract_jpeg_shape, is_jpeg)
__all__ += ["decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg",
            "decode_png", "encode_jpeg", "encode_png", "extract_jpeg_shape", "is_jpeg"]
