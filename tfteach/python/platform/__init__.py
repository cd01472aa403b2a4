"""Mirror of `tensorflow.python.platform`: `from tensorflow.python.platform import gfile`
(the notes' import) finds tf.gfile here."""
