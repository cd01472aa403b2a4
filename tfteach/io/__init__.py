"""File formats only, no TensorFlow API (DESIGN.md): TensorFlow's protocol buffers, the
checkpoint table, event files. The APIs in train/, summary/ and framework/ use them."""
