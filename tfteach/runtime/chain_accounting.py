"""A chain fused on a virtual GPU, accounted as its links would have been.

On a virtual GPU every value TF's GPU graph makes is charged to the allocator while it
lives, so the figures a class reads (peak, `num_allocs`, `largest_alloc_size`, the live
buffers of an OOM report) are the graph's. A fused chain (optimizer/
elementwise_chains.py; and fusion.py's convolution with its bias and relu, and max-pool
gradient with its relu's) makes one array where its n links made n, each read by the
next only. Its accounting is replayed instead, in the order the links ran one after
another (on a GPU a chain is fused only where its links follow one another in the
plan):

    link i:  charge its value (in use + c, peak, num_allocs, largest)
             free the previous link's value (in use - c)
             release the inputs link i was the last reader of (their Buffers)

Every link wrote into the head's array, so each value has that array's size c; the
intermediate values are counted, not kept (no Buffer: nobody can see them), and the
last link's is charged for real, as the array it is. The replay needs no reservation
growth and no OOM text: it runs only when all n values fit in what is reserved now,
and otherwise (and when a link could not write in place) the accounted loop runs the
links one by one (`unfused_steps`), recomputing the chain: the same values, and the
same growth and OOM as a walk of the unfused plan.
"""
import copy

import numpy as np

from tfteach.runtime.allocator import rounded_size

__all__ = ["ChainLinks", "consecutive_parts", "unfused_steps", "replay_script", "replay"]

_NDARRAY = np.ndarray


class ChainLinks:
    """What a fused step on a GPU keeps of its chain: the link steps as they were
    (kernels, names, allocator), how many inputs the head reads, and for each later
    link where the chain's value goes among its inputs and whether it reads another."""

    __slots__ = ("steps", "n_head", "layout", "_unfused")

    def __init__(self, steps, n_head, layout):
        self.steps = steps
        self.n_head = n_head
        self.layout = layout          # per link after the head: (value_at, has_other)
        self._unfused = {}            # fused step -> its links as steps of the plan


def consecutive_parts(group, position):
    """`group` (the steps a fused step would replace, in order) split where a step is not
    right after the one before it in the plan (`position`: step -> its index there) or
    accounts on another allocator: only such a part's charges can be replayed back to
    back, as its steps made them, with nothing else charged or freed between them."""
    parts, part = [], [group[0]]
    for previous, step in zip(group, group[1:]):
        if position[step] != position[previous] + 1 or step.alloc is not group[0].alloc:
            parts.append(part)
            part = []
        part.append(step)
    parts.append(part)
    return parts


def unfused_steps(fused):
    """The links of the fused step `fused` as the plan's steps, reading the slots the
    fused step reads now (a loop's specialised copy may have renamed them), each
    freeing what it reads last: what runs where the replay cannot. Cached per step."""
    links = fused.links
    steps = links._unfused.get(fused)
    if steps is not None:
        return steps
    ins = list(fused.in_slots)
    chain = links.steps
    reads = [tuple(ins[:links.n_head])]
    at = links.n_head
    for previous, (value_at, has_other) in zip(chain, links.layout):
        slots = []
        if has_other:
            slots.append(ins[at])
            at += 1
        slots.insert(value_at, previous.single_out)       # the chain's value
        reads.append(tuple(slots))
    last_reader = {}
    for i, slots in enumerate(reads):
        for s in slots:
            last_reader[s] = i
    steps = []
    for i, (link, slots) in enumerate(zip(chain, reads)):
        step = copy.copy(link)
        step.in_slots = slots
        if i == len(chain) - 1:
            step.out_slots, step.single_out = fused.out_slots, fused.single_out
        frees = [chain[i - 1].single_out] if i else []
        frees += [s for s in fused.frees if last_reader.get(s) == i]
        step.frees = tuple(frees)
        steps.append(step)
    links._unfused[fused] = steps
    return steps


def replay_script(fused, swallow, charged):
    """The replay's arguments for `fused`: (the last link's value slot, its name, whether
    nobody reads it, the number of links before the last, and for each of those that
    releases a Buffer: (its index, the slots whose Buffer it releases)). `charged`: the
    slots that may hold a Buffer when the step runs (a plan's constants hold none).
    The last link's frees are the fused step's own, done after it."""
    steps = unfused_steps(fused)
    frees_of = []
    for i, step in enumerate(steps[:-1]):
        chain_value = steps[i - 1].single_out if i else None
        frees = tuple(s for s in step.frees if s != chain_value and s in charged)
        if frees:
            frees_of.append((i, frees))
    tail = steps[-1]
    return (tail.single_out, tail.name, tail.single_out == swallow, len(steps) - 1,
            tuple(frees_of))


def replay(alloc, made, held, tail_slot, tail_name, unread, intermediates, frees_of):
    """Accounts the fused chain that made `made` = (value, whether every link wrote in
    place) as its links would have been accounted, and holds the value's Buffer in
    `held[tail_slot]`; False (nothing done) when a link did not write in place or the
    values might not fit the reservation as it is.

    The links' values all have one size. Link 0's value comes on top of what is in use;
    each later link's value comes beside the previous one, which is then freed: link
    i >= 1 reaches in use + 2 values, less what the links before it released. Releases
    only lower that, so link 1's height is the highest of them all, and a link that
    releases nothing needs no step of its own here (the notes' 150-op chain: none)."""
    value, in_place = made
    if not in_place or value.__class__ is not _NDARRAY:
        return False
    root = value              # a view (a convolution's reshaped product) holds its base
    while root.base is not None:
        root = root.base
        if root.__class__ is not _NDARRAY:
            return False
    if root.nbytes != value.nbytes:
        return False          # the links' values were not all of one size
    size = rounded_size(value.nbytes)
    with alloc.lock:        # other session threads account too
        if (alloc.bytes_in_use + (intermediates + 1) * size > alloc.bytes_reserved
                or id(root) in alloc.live):
            return False
        done = 0                  # links whose value has been counted
        for i, frees in frees_of:
            done = _count_up_to(alloc, size, done, i + 1)
            for s in frees:
                buf = held[s]
                if buf is not None:
                    held[s] = None
                    buf.allocator.unref(buf)
        if done < intermediates:
            _count_up_to(alloc, size, done, intermediates)
        alloc.num_allocs += intermediates
        if size > alloc.largest_alloc_size:
            alloc.largest_alloc_size = size
        buf = alloc.allocate_locked(value.nbytes, tail_name, value.shape, value.dtype, root)
        if intermediates:
            alloc.bytes_in_use -= size                # the last intermediate, freed
        if unread:
            alloc.free_locked(buf)
        else:
            held[tail_slot] = buf
    return True


def _count_up_to(alloc, size, done, stop):
    """Counts the values of links `done` .. `stop` - 1 (stop > done; no releases among
    them but after the last): the heights they reach, and in use after them (the last
    one's value live, the others freed). Returns `stop`."""
    if done == 0:                           # link 0: on top of what is in use
        in_use = alloc.bytes_in_use + size
        if in_use > alloc.peak_bytes_in_use:
            alloc.peak_bytes_in_use = in_use
        alloc.bytes_in_use = in_use
        done = 1
    if done < stop:                         # link `done` beside its previous one: the
        in_use = alloc.bytes_in_use + size  # highest of these (in use only falls)
        if in_use > alloc.peak_bytes_in_use:
            alloc.peak_bytes_in_use = in_use
    return stop
