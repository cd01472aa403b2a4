"""What a dataset op's kernel returns: a description of a stream of elements.

A dataset op (`TensorSliceDataset`, `MapDataset`, ...) runs when an iterator is
initialised; its kernel returns one of these objects (TF's `DatasetBase`), holding its
input datasets' objects and its arguments' values. `elements()` starts a fresh pass over
the stream (TF's `MakeIterator`): a Python generator of elements, each the flat list of
its components' NumPy values. Nothing here knows about graphs: functions arrive as
`FunctionRunner`s (function_graph.py), already bound to the Session.
"""
import numpy as np

from tfteach.framework.errors import DataLossError, InvalidArgumentError

__all__ = ["Stream", "Slices", "Single", "Range", "Zip", "Concatenate", "Repeat", "Take",
           "Skip", "Shuffle", "Batch", "PaddedBatch", "Unbatch", "Map", "Filter",
           "FlatMap", "Interleave", "Cache", "FromIterable"]


class Stream:
    """A dataset's value: `elements()` makes a new iterator over its elements."""

    def elements(self):
        raise NotImplementedError


class Slices(Stream):
    """`from_tensor_slices`: element i is row i of every component."""

    def __init__(self, components):
        self.components = [np.asarray(c) for c in components]
        sizes = {c.shape[0] for c in self.components}
        if len(sizes) > 1:
            first = self.components[0].shape[0]
            other = next(c.shape[0] for c in self.components if c.shape[0] != first)
            raise InvalidArgumentError(None, None, "Dimensions %d and %d are not compatible"
                                       % (first, other))

    def elements(self):
        for i in range(self.components[0].shape[0]):
            yield [c[i] for c in self.components]


class Single(Stream):
    """`from_tensors`: one element, the components themselves."""

    def __init__(self, components):
        self.components = list(components)

    def elements(self):
        yield list(self.components)


class Range(Stream):
    def __init__(self, start, stop, step):
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self.range = range(int(start), int(stop), int(step))

    def elements(self):
        for i in self.range:
            yield [np.int64(i)]


class FromIterable(Stream):
    """A stream whose elements a Python callable produces anew for each pass (files,
    `from_generator`): `make()` returns an iterable of flat element lists."""

    def __init__(self, make):
        self.make = make

    def elements(self):
        return iter(self.make())


class Zip(Stream):
    def __init__(self, inputs, sizes):
        self.inputs, self.sizes = inputs, sizes

    def elements(self):
        iterators = [s.elements() for s in self.inputs]
        while True:
            element = []
            for it in iterators:
                try:
                    element.extend(next(it))
                except StopIteration:
                    return
            yield element


class Concatenate(Stream):
    def __init__(self, first, second):
        self.first, self.second = first, second

    def elements(self):
        yield from self.first.elements()
        yield from self.second.elements()


class Repeat(Stream):
    def __init__(self, input_stream, count):
        self.input, self.count = input_stream, int(count)

    def elements(self):
        done = 0
        while self.count < 0 or done < self.count:
            produced = False
            for element in self.input.elements():
                produced = True
                yield element
            if not produced:        # TF: repeating an empty dataset ends at once
                return
            done += 1


class Take(Stream):
    def __init__(self, input_stream, count):
        self.input, self.count = input_stream, int(count)

    def elements(self):
        if self.count == 0:
            return
        for i, element in enumerate(self.input.elements()):
            yield element
            if i + 1 == self.count:
                return


class Skip(Stream):
    def __init__(self, input_stream, count):
        self.input, self.count = input_stream, int(count)

    def elements(self):
        iterator = self.input.elements()
        if self.count < 0:            # TF: skip(-1) skips everything
            for _ in iterator:
                pass
            return
        for _ in range(self.count):
            if next(iterator, None) is None:
                return
        yield from iterator


class Shuffle(Stream):
    """TF's ShuffleDataset: a buffer of `buffer_size` elements; each output is a random
    element of the buffer, replaced by the next input element. `next_seed()` gives each
    pass its generator (a new order per pass with reshuffle_each_iteration)."""

    def __init__(self, input_stream, buffer_size, next_seed):
        if buffer_size <= 0:
            raise InvalidArgumentError(None, None, "buffer_size must be greater than zero.")
        self.input, self.buffer_size, self.next_seed = input_stream, int(buffer_size), next_seed

    def elements(self):
        rng = np.random.default_rng(self.next_seed())
        iterator = self.input.elements()
        buffer = []
        for element in iterator:
            buffer.append(element)
            if len(buffer) == self.buffer_size:
                break
        for element in iterator:
            i = int(rng.integers(len(buffer)))
            yield buffer[i]
            buffer[i] = element
        while buffer:
            i = int(rng.integers(len(buffer)))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()


def _array(value):
    """A component's value as an array; strings as an object array of bytes (NumPy's
    bytes dtype would drop trailing NUL bytes, which a serialized Example can end with)."""
    if isinstance(value, (bytes, str)) or (isinstance(value, np.ndarray) and
                                          value.dtype.kind in "SU"):
        return np.asarray(value, dtype=object)
    return np.asarray(value)


def _stack(rows, component):
    from tfteach.data.sparse import SparseTensorValue, batch_sparse
    if isinstance(rows[0], SparseTensorValue):
        return batch_sparse(rows)
    first = np.shape(rows[0])
    for i, row in enumerate(rows):
        if np.shape(row) != first:
            raise InvalidArgumentError(
                None, None, "Cannot batch tensors with different shapes in component %d. "
                "First element had shape [%s] and element %d had shape [%s]."
                % (component, ",".join(map(str, first)), i,
                   ",".join(map(str, np.shape(row)))))
    return np.stack([_array(r) for r in rows])


def _batches(input_stream, batch_size, drop_remainder):
    batch = []
    for element in input_stream.elements():
        batch.append(element)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_remainder:
        yield batch


class Batch(Stream):
    def __init__(self, input_stream, batch_size, drop_remainder):
        if batch_size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self.input, self.batch_size, self.drop = input_stream, int(batch_size), drop_remainder

    def elements(self):
        for batch in _batches(self.input, self.batch_size, self.drop):
            yield [_stack(rows, c) for c, rows in enumerate(zip(*batch))]


class PaddedBatch(Stream):
    """Each component padded to `padded_shapes` (-1: the batch's largest) with its
    padding value."""

    def __init__(self, input_stream, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        if batch_size <= 0:
            raise InvalidArgumentError(None, None, "Batch size must be greater than zero.")
        self.input, self.batch_size, self.drop = input_stream, int(batch_size), drop_remainder
        self.padded_shapes = [[int(d) for d in np.ravel(s)] for s in padded_shapes]
        self.padding_values = padding_values

    def elements(self):
        for batch in _batches(self.input, self.batch_size, self.drop):
            yield [self._pad(c, [_array(r) for r in rows])
                   for c, rows in enumerate(zip(*batch))]

    def _pad(self, component, rows):
        wanted = self.padded_shapes[component]
        if any(r.ndim != len(wanted) for r in rows):
            raise InvalidArgumentError(
                None, None, "All elements in a batch must have the same rank as the padded "
                "shape for component%d: expected rank %d but got element with rank %d"
                % (component, len(wanted), next(r.ndim for r in rows if r.ndim != len(wanted))))
        shape = [max(r.shape[d] for r in rows) if w < 0 else w for d, w in enumerate(wanted)]
        for r in rows:
            if any(n > s for n, s in zip(r.shape, shape)):
                # TF's PaddedBatchDataset reports it as DataLoss.
                raise DataLossError(
                    None, None, "Attempted to pad to a smaller size than the input element.")
        out = np.empty([len(rows)] + shape, dtype=rows[0].dtype)
        out[...] = self.padding_values[component]
        for i, r in enumerate(rows):
            # (a 0-d object array would be stored as itself: its item is the value)
            out[(i,) + tuple(slice(0, n) for n in r.shape)] = r if r.ndim else r.item()
        return out


class Unbatch(Stream):
    def __init__(self, input_stream):
        self.input = input_stream

    def elements(self):
        for element in self.input.elements():
            arrays = [_array(c) for c in element]
            if any(a.ndim == 0 for a in arrays):
                raise InvalidArgumentError(None, None, "Input element must have a non-scalar "
                                           "value in each component.")
            size = arrays[0].shape[0]
            for i, a in enumerate(arrays[1:], 1):
                if a.shape[0] != size:
                    raise InvalidArgumentError(
                        None, None, "Input element must have the same batch size in each "
                        "component. Component 0 had size %d but component %d had size, %d."
                        % (size, i, a.shape[0]))
            for i in range(size):
                yield [a[i] for a in arrays]


class Map(Stream):
    def __init__(self, input_stream, run, captured):
        self.input, self.run, self.captured = input_stream, run, captured

    def elements(self):
        for element in self.input.elements():
            yield self.run(element, self.captured)


class Filter(Stream):
    def __init__(self, input_stream, run, captured):
        self.input, self.run, self.captured = input_stream, run, captured

    def elements(self):
        for element in self.input.elements():
            if bool(np.asarray(self.run(element, self.captured)[0])):
                yield element


class FlatMap(Stream):
    """`run(element)` gives a one-item list: the Stream of the dataset fn returned."""

    def __init__(self, input_stream, run, captured):
        self.input, self.run, self.captured = input_stream, run, captured

    def elements(self):
        for element in self.input.elements():
            yield from self.run(element, self.captured)[0].elements()


class Interleave(Stream):
    """TF's InterleaveDataset: `cycle_length` inner iterators open at once, taking
    `block_length` elements from each in turn; an exhausted one is replaced, in its
    place of the cycle, by the next input element's dataset."""

    def __init__(self, input_stream, run, captured, cycle_length, block_length):
        if cycle_length <= 0:
            raise InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        if block_length <= 0:
            raise InvalidArgumentError(None, None, "block_length must be greater than zero.")
        self.input, self.run, self.captured = input_stream, run, captured
        self.cycle_length, self.block_length = int(cycle_length), int(block_length)

    def elements(self):
        inputs = self.input.elements()
        current = [None] * self.cycle_length
        cycle = block = num_open = 0
        end_of_input = False
        while not end_of_input or num_open > 0:
            if current[cycle] is not None:
                element = next(current[cycle], None)
                if element is not None:
                    block += 1
                    if block == self.block_length:
                        block, cycle = 0, (cycle + 1) % self.cycle_length
                    yield element
                    continue
                current[cycle] = None
                num_open -= 1
                block, cycle = 0, (cycle + 1) % self.cycle_length
            elif not end_of_input:
                element = next(inputs, None)
                if element is None:
                    end_of_input = True
                else:
                    current[cycle] = self.run(element, self.captured)[0].elements()
                    num_open += 1
            else:
                block, cycle = 0, (cycle + 1) % self.cycle_length


class Cache(Stream):
    """The first complete pass is kept (in memory); later passes replay it. A pass
    abandoned midway keeps nothing, as TF's memory cache."""

    def __init__(self, input_stream, store):
        self.input, self.store = input_stream, store

    def elements(self):
        if self.store.get("elements") is not None:
            yield from self.store["elements"]
            return
        seen = []
        for element in self.input.elements():
            seen.append(element)
            yield element
        self.store["elements"] = seen
