"""`tf.losses` (TF 1.15): loss functions that weight, reduce and collect their result.

losses_impl.py holds the loss functions, weighted_loss.py `compute_weighted_loss` and
`Reduction`, util.py the collections (`get_total_loss`, ...), weights_broadcast.py the
rule for `weights`, safe_div.py the `DivNoNan` op. See docs/losses.md.
"""
from tfteach.losses import losses_impl, util, weighted_loss
from tfteach.losses.losses_impl import *  # noqa: F401,F403
from tfteach.losses.util import *  # noqa: F401,F403
from tfteach.losses.weighted_loss import *  # noqa: F401,F403

__all__ = losses_impl.__all__ + util.__all__ + weighted_loss.__all__
