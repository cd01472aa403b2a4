"""Mirror of `tensorflow.core` paths: the protocol buffer modules TF programs import by
path (`from tensorflow.core.protobuf import rewriter_config_pb2`, to turn Grappler passes
off; `from tensorflow.core.framework import summary_pb2`, to write a summary by hand).

`tensorflow` becomes `tfteach` and the program runs. The options messages
(`config_pb2`, `rewriter_config_pb2`) are tfteach's own records (runtime/config.py),
the ones `tf.ConfigProto` gives; the file formats' messages are TensorFlow's own, as
TensorBoard ships them compiled (io/tf_protos.py), the classes tfteach writes with.
"""
