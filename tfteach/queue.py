"""`tf.queue`: TF 1.15's namespace for the queue classes (also at `tf.FIFOQueue`, ...)."""
from tfteach.ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, PriorityQueue,  # noqa: F401
                                       QueueBase, RandomShuffleQueue)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
           "RandomShuffleQueue"]
