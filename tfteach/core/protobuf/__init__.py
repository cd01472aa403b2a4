"""Mirror of `tensorflow.core.protobuf`."""
