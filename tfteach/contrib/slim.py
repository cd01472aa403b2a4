"""(being written) `tf.contrib.slim`"""
