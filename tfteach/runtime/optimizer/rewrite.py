"""One thing a pass did, as the notebook and `optimizer.rewrites_of` show it."""
from collections import namedtuple

__all__ = ["Rewrite"]

# pass_name: the pass ("shape_folding", ...); nodes: the graph's node names it
# rewrote; result: what they became, in words ("constant [32, 1]", "reads x:0", ...).
Rewrite = namedtuple("Rewrite", ["pass_name", "nodes", "result"])
