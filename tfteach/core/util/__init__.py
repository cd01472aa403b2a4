"""Mirror of `tensorflow.core.util`."""
