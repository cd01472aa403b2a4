"""(being written) `tf.contrib.rnn`"""
