"""Mirror of `tensorflow.python.framework` (`from tensorflow.python.framework import
graph_util`, as the notes write it)."""
