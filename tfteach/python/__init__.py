"""Mirror of `tensorflow.python` paths the course notes import from."""
