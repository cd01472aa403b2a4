"""`tf.nn`: activations, softmax, the cross entropies and l2_loss (TF 1.15's names).

One module per idea: activations.py (relu, elu, ...), softmax_ops.py (softmax,
log_softmax), xent_ops.py (the fused softmax cross entropies), losses_ops.py (l2_loss,
the sigmoid cross entropies). Their gradients are registered in ops/nn_grad.py.
Kernels: kernels/cpu/nn_kernels.py. Later issues add conv, pooling and RNN modules.
"""
from tfteach.nn import (activations, conv_ops, losses_ops, nn_misc_ops,  # noqa: E402
                        normalization_ops, pooling_ops, rnn, rnn_cell_impl, softmax_ops,
                        xent_ops)
from tfteach.nn import rnn_cell  # noqa: F401 - the `tf.nn.rnn_cell` namespace
from tfteach.nn.conv_ops import *  # noqa: F401,F403
from tfteach.nn.nn_misc_ops import *  # noqa: F401,F403
from tfteach.nn.normalization_ops import *  # noqa: F401,F403
from tfteach.nn.pooling_ops import *  # noqa: F401,F403
from tfteach.nn.rnn import *  # noqa: F401,F403
from tfteach.nn.activations import *  # noqa: F401,F403
from tfteach.nn.losses_ops import *  # noqa: F401,F403
from tfteach.nn.softmax_ops import *  # noqa: F401,F403
from tfteach.nn.xent_ops import *  # noqa: F401,F403
from tfteach.ops import nn_grad  # noqa: F401,E402 (registers the gradients)

__all__ = (activations.__all__ + losses_ops.__all__ + softmax_ops.__all__ + xent_ops.__all__ +
           conv_ops.__all__ + pooling_ops.__all__ + normalization_ops.__all__ +
           nn_misc_ops.__all__ + rnn.__all__)
