"""`tf.contrib.data` (TF 1.15): the names of `tf.data.experimental` it still kept, which
the course notes link (note 001: `tf.contrib.data.map_and_batch`)."""
from tfteach.data.experimental import (AUTOTUNE, enumerate_dataset,  # noqa: F401
                                      map_and_batch, parallel_interleave, shuffle_and_repeat,
                                      unbatch)

__all__ = ["map_and_batch", "unbatch", "shuffle_and_repeat", "parallel_interleave",
           "enumerate_dataset", "AUTOTUNE"]
