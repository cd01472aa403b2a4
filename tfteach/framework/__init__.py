"""Graph building: Graph, Operation, Tensor, dtypes, shapes, names, errors (DESIGN.md)."""
