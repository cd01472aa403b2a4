"""`tf.contrib` (TF 1.15's, which TF 2 removed): the parts the course notes use.

layers (regularizers), seq2seq (sequence_loss), legacy_seq2seq
(sequence_loss_by_example, sequence_loss). Later issues add contrib.layers' layer
functions and slim; eager is `tfe`, note 001's eager API (contrib/eager.py).
"""
from tfteach.contrib import layers, legacy_seq2seq, rnn, seq2seq, slim  # noqa: F401
from tfteach.contrib import tensorboard  # noqa: F401,E402 (projector config)
from tfteach.contrib import data  # noqa: F401,E402 (tf.contrib.data: map_and_batch; issue 18)
from tfteach.contrib import eager  # noqa: F401,E402 (tfe: note 001's eager section)
from tfteach.contrib import learn  # noqa: F401,E402 (note 002's load_dataset("mnist"))
from tfteach.contrib import summary  # noqa: F401,E402 (note 001's eager summaries)
