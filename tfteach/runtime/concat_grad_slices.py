"""A concat's gradient as one step in a specialised loop body, where an input of the
concat changes shape every iteration (docs/rnn.md, "Speed").

TensorFlow's gradient of `concat([acc, row], axis)` is four ops:

    shapes = ShapeN(acc, row)
    offsets = ConcatOffset(axis, shapes)
    d_acc, d_row = Slice(g, offsets[0], shapes[0]), Slice(g, offsets[1], shapes[1])

dynamic_rnn appends each time step's output row to such a concat (`rnn/while/concat`),
so `acc` is one row longer each iteration: the loop specialiser (loop_specialise.py)
cannot take ShapeN's value as recorded, and ShapeN, ConcatOffset and both Slices ran
once per time step in the gradient loop (~15 us of Python an iteration).

Here the group becomes one step that reads the inputs' shapes itself, works out the
offsets as ConcatOffset does and returns the views `slice_kernel` returns for the same
begin and size: the same values, with no shape tensors in between. Where anything is
not as in that common case (an input that is not an array, another rank, a slice out
of bounds), the step raises the specialiser's "shapes changed" exception: the plain plan
runs that iteration again from the start and raises TensorFlow's error at the op that
fails, as the unspecialised loop would.

On the CPU and on a virtual GPU alike: there the shapes and offsets are host memory,
never charged, and the step's two views are charged as the two Slices' were (a view
adds a reference to its base's Buffer), so every memory figure stays the four ops'.
"""
import copy
from collections import defaultdict

import numpy as np

from tfteach.runtime.optimizer.rewrite import Rewrite

__all__ = ["fuse_concat_grad_slices", "rewrites_in", "NAME"]

NAME = "loop_concat_gradient"      # the pass name its records carry (rewrites_of)
_STEP_TYPE = "ConcatGradSlices"


def fuse_concat_grad_slices(steps, template, fetch_slots, shapes_changed):
    """`steps` with each ShapeN -> ConcatOffset -> Slices group replaced by one step.
    `template`: the plan's constants (the concat axis must be one); `shapes_changed`:
    the exception the new step raises where the group's own ops would do something
    else than the common case."""
    readers = defaultdict(list)
    for step in steps:
        for s in step.in_slots:
            readers[s].append(step)
    fetched = set(fetch_slots)
    position = {id(step): i for i, step in enumerate(steps)}
    replaced = {}                        # step -> the step that replaces it (or None)
    for step in steps:
        if step.type == "ShapeN":
            group = _group(step, readers, template, fetched, position, shapes_changed)
            if group is not None:
                fused, first, members = group
                for member in members:
                    replaced[member] = None
                # Where the first Slice was: `g` and the concat's inputs are computed
                # by then, and nothing reads a slice before it.
                replaced[first] = fused
    if not replaced:
        return steps
    out = []
    for step in steps:
        if step in replaced:
            if replaced[step] is not None:
                out.append(replaced[step])
        else:
            out.append(step)
    return out


def _group(shape_n, readers, template, fetched, position, shapes_changed):
    """(fused step, its first Slice, [ShapeN, ConcatOffset, Slices...]) for the concat
    gradient that starts at `shape_n`, or None if these steps are not exactly one."""
    shapes = shape_n.out_slots
    # (Shapes and offsets are host memory, never charged, on a virtual GPU too.)
    if not _host(shape_n) or shape_n.alloc is not None or \
            len(shapes) != len(shape_n.in_slots) or any(s in fetched for s in shapes):
        return None
    offset_steps = [r for r in readers[shapes[0]] if r.type == "ConcatOffset"]
    if len(offset_steps) != 1:
        return None
    concat_offset = offset_steps[0]
    axis_slot, *shape_slots = concat_offset.in_slots
    offsets = concat_offset.out_slots
    if tuple(shape_slots) != tuple(shapes) or len(offsets) != len(shapes) or \
            not _host(concat_offset) or concat_offset.alloc is not None or \
            any(s in fetched for s in offsets):
        return None
    axis = template[axis_slot] if axis_slot < len(template) else None
    if not isinstance(axis, (np.ndarray, np.generic)) or np.size(axis) != 1 or \
            axis.dtype.kind not in "iu":
        return None
    axis = int(axis)
    # Every reader of a shape or an offset: the ConcatOffset, or a Slice of one
    # gradient `g` at (offsets[i], shapes[i]), each i at most once.
    slices = {}
    gradient = None
    for i, (shape_slot, offset_slot) in enumerate(zip(shapes, offsets)):
        for reader in readers[shape_slot] + readers[offset_slot]:
            if reader is concat_offset:
                continue
            if reader.type != "Slice" or not _host(reader) or reader.single_out is None or \
                    any(other.alloc is not reader.alloc for other in slices.values()) or \
                    len(reader.in_slots) != 3 or \
                    reader.in_slots[1:] != (offset_slot, shape_slot) or \
                    slices.get(i, reader) is not reader or \
                    (gradient is not None and reader.in_slots[0] != gradient):
                return None
            slices[i] = reader
            gradient = reader.in_slots[0]
    if not slices:
        return None
    which = sorted(slices)
    first = min(slices.values(), key=lambda s: position[id(s)])
    members = [shape_n, concat_offset] + sorted(slices.values(), key=lambda s: position[id(s)])
    fused = copy.copy(first)
    fused.kernel = _slices_kernel(axis, tuple(which), shapes_changed)
    fused.kernel.nodes = tuple(m.name for m in members)     # for rewrites_in
    fused.in_slots = (gradient,) + tuple(shape_n.in_slots)
    fused.out_slots = tuple(slices[i].single_out for i in which)
    fused.single_out = None
    fused.type = _STEP_TYPE
    fused.name = concat_offset.name.rsplit("/", 1)[0] + "/(ShapeN+ConcatOffset+Slices)"
    return fused, first, members


def rewrites_in(steps):
    """The Rewrite of each fused concat gradient among `steps` (a loop body's
    specialised copy: loop_specialise.loop_body_rewrites_in asks here)."""
    return [Rewrite(NAME, step.kernel.nodes, "one step: the gradient's slices, their "
                    "offsets from the inputs' shapes")
            for step in steps if step.type == _STEP_TYPE]


def _host(step):
    """On host arrays (the CPU's, or a virtual GPU's, which only counts them), the op's
    own kernel (not a copy or a fusion)."""
    return step.on_host_arrays and step.source is None and step.kernel is step.ctx.kernel


def _slices_kernel(axis, which, shapes_changed):
    """The kernel: g and the concat's inputs -> the slices of g at inputs `which`."""
    def concat_grad_slices(ctx, g, *inputs):
        if type(g) is not np.ndarray:
            raise shapes_changed()
        rank = g.ndim
        a = axis + rank if axis < 0 else axis
        if not 0 <= a < rank:                 # ConcatOffset's error
            raise shapes_changed()
        starts, start = [], 0
        first = inputs[0].shape if type(inputs[0]) is np.ndarray else None
        for x in inputs:
            if type(x) is not np.ndarray or x.ndim != rank:
                raise shapes_changed()
            shape = x.shape
            if shape[:a] != first[:a] or shape[a + 1:] != first[a + 1:]:
                raise shapes_changed()       # ConcatOffset's error: only `axis` may differ
            starts.append(start)
            start += shape[a]
        out = []
        for i in which:
            # Slice(g, begin=offset i, size=shape i): x's own extent on every axis but
            # `axis`, where it starts after the inputs before it.
            index = []
            for d, (size, dim) in enumerate(zip(inputs[i].shape, g.shape)):
                begin = starts[i] if d == a else 0
                if begin + size > dim:        # Slice's error
                    raise shapes_changed()
                index.append(slice(begin, begin + size))
            out.append(g[tuple(index)])
        return out
    return concat_grad_slices
