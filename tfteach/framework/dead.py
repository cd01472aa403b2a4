"""The DEAD value: what flows out of the untaken side of a `tf.cond` Switch.

It lives here, below both the kernels that produce it (Switch, Merge) and the executor
that propagates it: an op with a dead input or a dead control input does not run, and
its outputs are dead too, unless its type handles dead inputs (Merge).
"""

__all__ = ["DEAD"]


class _Dead:
    """The value on the untaken side of a `tf.cond` switch: ops fed by it do not run."""

    __slots__ = ()

    def __repr__(self):
        return "<dead tensor>"


DEAD = _Dead()
