"""(being written) `tf.layers`"""
