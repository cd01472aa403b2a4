"""Mirror of `tensorflow.python.client` (`device_lib`)."""
