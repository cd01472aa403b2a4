"""TensorFlow 1.x tutorial helpers (`tf.examples.tutorials...`), reading local files."""
