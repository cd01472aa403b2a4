"""Nested structures of tensors (lists, tuples, namedtuples, dicts), as `tf.nest`.

`tf.cond` and `tf.while_loop` accept and return any such structure: they flatten it into
a list of tensors, build ops for the flat list and pack the results back. Dicts flatten
in sorted key order and pack back with their keys in the template's order, as
TensorFlow's `nest` does.
"""
__all__ = ["is_nested", "flatten", "pack_sequence_as", "assert_same_structure",
           "map_structure", "children", "flatten_with", "pack_with"]


def is_nested(value):
    return isinstance(value, (list, tuple, dict))


def children(value):
    """The direct children of a nested value, dicts in sorted key order."""
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(structure):
    """The leaves of `structure`, depth first; a non-nested value is its own leaf."""
    return flatten_with(structure, is_nested)


def flatten_with(structure, nested):
    """`flatten` under another rule for what counts as nested (`nested(value)`): tf.data
    treats a list as a leaf (data/structure.py), `tf.nest` as a sequence."""
    if not nested(structure):
        return [structure]
    leaves = []
    for child in children(structure):
        leaves.extend(flatten_with(child, nested))
    return leaves


def _rebuild(like, children):
    if isinstance(like, dict):
        # the children come in sorted key order; the keys keep `like`'s order, as TF's
        # nest packs (`{'b': .., 'a': ..}` prints b first)
        value_of = dict(zip(sorted(like), children))
        return type(like)((key, value_of[key]) for key in like)
    if isinstance(like, tuple) and hasattr(like, "_fields"):     # namedtuple
        return type(like)(*children)
    return type(like)(children)


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence` arranged like `structure` (the inverse of `flatten`)."""
    return pack_with(structure, flat_sequence, is_nested)


def pack_with(structure, flat_sequence, nested):
    """`pack_sequence_as` under another rule for what counts as nested (see
    `flatten_with`)."""
    flat_sequence = list(flat_sequence)
    expected = len(flatten_with(structure, nested))
    if len(flat_sequence) != expected:
        raise ValueError("Could not pack sequence. Structure had %d elements, but "
                         "flat_sequence had %d elements." % (expected, len(flat_sequence)))
    position = [0]

    def pack(like):
        if not nested(like):
            position[0] += 1
            return flat_sequence[position[0] - 1]
        return _rebuild(like, [pack(child) for child in children(like)])

    return pack(structure)


def _dots(structure):
    return str(map_structure(lambda _: ".", structure))


def assert_same_structure(first, second, check_types=True):
    """TF's ValueError (shape of the nesting) or TypeError (kinds of sequence)."""
    problem = _difference(first, second, check_types)
    if problem is not None:
        error_class, detail = problem
        raise error_class(
            "The two structures don't have the same nested structure.\n\n"
            "First structure: %s\n\nSecond structure: %s\n\nMore specifically: %s\n"
            "Entire first structure:\n%s\nEntire second structure:\n%s"
            % (first, second, detail, _dots(first), _dots(second)))


def _difference(a, b, check_types):
    if is_nested(a) != is_nested(b):
        nested, flat = (a, b) if is_nested(a) else (b, a)
        return ValueError, ('Substructure "type=%s str=%s" is a sequence, while substructure '
                            '"type=%s str=%s" is not' % (type(nested).__name__, nested,
                                                         type(flat).__name__, flat))
    if not is_nested(a):
        return None
    if check_types and type(a) is not type(b) and not (
            isinstance(a, dict) and isinstance(b, dict)):
        return TypeError, ("The two namedtuples don't have the same sequence type. First "
                           "structure has type %s, while second structure has type %s"
                           % (type(a).__name__, type(b).__name__))
    if isinstance(a, dict) and sorted(a) != sorted(b):
        return ValueError, ("The two dictionaries don't have the same set of keys. First "
                            "structure has keys %s, while second structure has keys %s"
                            % (sorted(a), sorted(b)))
    if len(a) != len(b):
        return ValueError, ("Substructure %s has length %d, while %s has length %d"
                            % (a, len(a), b, len(b)))
    for x, y in zip(children(a), children(b)):
        problem = _difference(x, y, check_types)
        if problem is not None:
            return problem
    return None


def map_structure(fn, *structures):
    """`fn` applied leaf by leaf; the result has the structure of the first argument."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    flat = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flat)])
