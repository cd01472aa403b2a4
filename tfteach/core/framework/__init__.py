"""Mirror of `tensorflow.core.framework`."""
