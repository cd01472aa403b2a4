"""Cells made of cells: MultiRNNCell (stacked layers) and the wrappers (dropout, ...).

- `MultiRNNCell([cell0, cell1])` runs cell0 on the inputs and cell1 on cell0's output in
  one step; its state is the tuple of the cells' states. Each cell's variables go under
  `multi_rnn_cell/cell_<i>/` (rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel).
- A wrapper changes what goes in or out of a cell but has no variables and no scope of
  its own: `DropoutWrapper(cell)` keeps the cell's variable names.
"""
import hashlib
import numbers

from tfteach.framework import tensor_shape
from tfteach.framework.convert import convert_to_tensor
from tfteach.framework.graph_functions import device, name_scope
from tfteach.ops import array_ops, math_ops, nest, random_ops
from tfteach.ops import variable_scope as vs
from tfteach.ops.op_builder import constant_value
from tfteach.nn.rnn_cell_base import LSTMStateTuple, RNNCell, assert_like_rnncell

__all__ = ["MultiRNNCell", "DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]


class MultiRNNCell(RNNCell):
    """Stacked cells: layer i's output is layer i+1's input, within one time step."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag "
                             "state_is_tuple is not set.  State sizes are: %s"
                             % str([c.state_size for c in cells]))

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in getattr(cell, "trainable_weights", [])]

    @property
    def non_trainable_weights(self):
        return [w for cell in self._cells
                for w in getattr(cell, "non_trainable_weights", [])]

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope("cell_%d" % i):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError("Expected state to be a tuple of length %d, but "
                                         "received: %s" % (len(self.state_size), state))
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos],
                                                [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = (tuple(new_states) if self._state_is_tuple
                      else array_ops.concat(new_states, 1))
        return cur_inp, new_states


class _RNNCellWrapper(RNNCell):
    """A cell around a cell: same sizes, same variables, the wrapped cell's scope."""

    def __init__(self, cell, **kwargs):
        super().__init__(**kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    @property
    def wrapped_cell(self):
        return self.cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    @property
    def trainable_weights(self):
        return list(getattr(self.cell, "trainable_weights", []))

    @property
    def non_trainable_weights(self):
        return list(getattr(self.cell, "non_trainable_weights", []))

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError


def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in sorted(structure)]
    return list(structure)


def _default_dropout_state_filter_visitor(substate):
    # Never drop the memory c of an LSTM: only h (Gal & Ghahramani, as TF does).
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _dropout(x, keep_prob, seed):
    """tf.nn.dropout(x, rate=1 - keep_prob): keep with probability keep_prob, scale up."""
    from tfteach import nn
    if getattr(nn, "dropout", None) is not None:
        return nn.dropout(x, rate=1.0 - keep_prob, seed=seed)
    # TF's dropout_v2, written out: keep where uniform noise >= rate, divide by keep_prob.
    with name_scope(None, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        noise = random_ops.random_uniform(array_ops.shape(x), seed=seed, dtype=x.dtype)
        keep = math_ops.cast(noise >= 1.0 - keep_prob, x.dtype)
        result = x * (1.0 / keep_prob) * keep
        result.set_shape(x.shape)
        return result


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and (except an LSTM's c) new state.

    A fresh mask every step, unless variational_recurrent=True: then one mask per
    session.run, the same at every step (needs dtype, and input_size for input dropout).
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0,
                 state_keep_prob=1.0, variational_recurrent=False, input_size=None,
                 dtype=None, seed=None, dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = (dropout_state_filter_visitor or
                                      _default_dropout_state_filter_visitor)
        with name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"),
                               (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor = convert_to_tensor(prob)
                const = constant_value(tensor)
                if const is not None:
                    if const < 0 or const > 1:
                        # TF 1.15 printed the value with %d (1.5 showed as 1).
                        raise ValueError("Parameter %s must be between 0 and 1: %g"
                                         % (attr, const))
                    setattr(self, "_%s" % attr, float(const))
                else:
                    setattr(self, "_%s" % attr, tensor)
        self._variational_recurrent = variational_recurrent
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            self._make_recurrent_noise(cell, input_size, dtype)

    def _make_recurrent_noise(self, cell, input_size, dtype):
        if dtype is None:
            raise ValueError("When variational_recurrent=True, dtype must be provided")

        def batch_noise(s, inner_seed):
            shape = [1] + tensor_shape.as_shape(s).as_list()
            return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

        def noise_for(sizes, prefix):
            flat = nest.flatten(sizes)
            return nest.pack_sequence_as(sizes, [batch_noise(s, self._gen_seed(prefix, i))
                                                 for i, s in enumerate(flat)])

        if not isinstance(self._input_keep_prob, numbers.Real) or \
                self._input_keep_prob < 1.0:
            if input_size is None:
                raise ValueError("When variational_recurrent=True and input_keep_prob < "
                                 "1.0 or is unknown, input_size must be provided")
            self._recurrent_input_noise = noise_for(input_size, "input")
        self._recurrent_state_noise = noise_for(cell.state_size, "state")
        self._recurrent_output_noise = noise_for(cell.output_size, "output")

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        string = (str(self._seed) + "%s_%d" % (salt_prefix, index)).encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _drop(self, i, value, noise, keep_prob, salt_prefix):
        if noise is None:
            return _dropout(value, keep_prob, self._gen_seed(salt_prefix, i))
        # The same mask every step: floor(keep_prob + noise) is 1 with prob keep_prob.
        result = math_ops.divide(value, keep_prob) * math_ops.floor(keep_prob + noise)
        result.set_shape(value.shape)
        return result

    def _dropout_structure(self, values, salt_prefix, noise, keep_prob):
        flat = nest.flatten(values)
        flat_noise = nest.flatten(noise) if noise is not None else [None] * len(flat)
        return nest.pack_sequence_as(values, [
            self._drop(i, v, n, keep_prob, salt_prefix)
            for i, (v, n) in enumerate(zip(flat, flat_noise))])

    def _dropout_state(self, state):
        """State dropout where the filter says so (by default not on an LSTM's c)."""
        flat = nest.flatten(state)
        flat_noise = (nest.flatten(self._recurrent_state_noise)
                      if self._recurrent_state_noise is not None else [None] * len(flat))
        flags = self._drop_flags(state)
        # TF numbers the seeds over the parts the filter looked at; here one per leaf.
        result = [self._drop(i, v, n, self._state_keep_prob, "state") if drop else v
                  for i, (v, n, drop) in enumerate(zip(flat, flat_noise, flags))]
        return nest.pack_sequence_as(state, result)

    def _drop_flags(self, substate):
        """One boolean per leaf of `substate`: apply dropout to it or not.

        The filter answers for a whole (sub)structure: False keeps all of it, True on a
        structure asks again about each part, and a structure of booleans decides per
        part (LSTMStateTuple(c=False, h=True) for an LSTM's state).
        """
        decision = self._dropout_state_filter(substate)
        if isinstance(decision, bool):
            if decision and nest.is_nested(substate):
                return [flag for child in _children(substate)
                        for flag in self._drop_flags(child)]
            return [decision] * len(nest.flatten(substate))
        return [bool(d) for child, d in zip(_children(substate), nest.flatten(decision))
                for _ in nest.flatten(child)]

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout_structure(inputs, "input", self._recurrent_input_noise,
                                             self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            new_state = self._dropout_state(new_state)
        if should_dropout(self._output_keep_prob):
            output = self._dropout_structure(output, "output", self._recurrent_output_noise,
                                             self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_RNNCellWrapper):
    """output = inputs + cell's output (inputs and output must have the same shape)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)
            for inp, out in zip(nest.flatten(inputs), nest.flatten(outputs)):
                inp.shape.assert_is_compatible_with(out.shape)
            return nest.map_structure(lambda inp, out: inp + out, inputs, outputs)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """Builds the cell's ops (and its zero state) on `device`."""

    def __init__(self, cell, device, **kwargs):
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"), device(self._device):
            return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)


