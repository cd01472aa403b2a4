"""`model.summary()`, laid out as TF 1.15's Keras prints it.

A chain of layers (Sequential, or a functional model where each layer has one input)
gets three columns at 65 characters (positions .45/.85/1); other functional models get
a fourth, 'Connected to', at 98 characters. Layers of a subclassed model print their
output shape as 'multiple' (Keras does not track calls inside `call`). Totals use
thousands separators: 'Total params: 7,850'.
"""
import numpy as np

from tfteach.keras.engine.input_layer import InputLayer

__all__ = ["print_summary", "count_params"]


def count_params(weights):
    unique = []
    for w in weights:
        if not any(w is u for u in unique):
            unique.append(w)
    return int(sum(np.prod(w.get_shape().as_list(), dtype=np.int64) for w in unique))


def _is_sequential_like(model):
    if not model._is_graph_network:
        return True
    for node in model._network_nodes:
        if len(node.input_tensors) > 1:
            return False
    uses = {}
    for node in model._network_nodes:
        uses[id(node.layer)] = uses.get(id(node.layer), 0) + 1
        for tensor in node.input_tensors:
            consumers = [n for n in model._network_nodes
                         if any(t is tensor for t in n.input_tensors)]
            if len(consumers) > 1:
                return False
    return all(count == 1 for count in uses.values())


def _output_shape(model, layer):
    if not model._is_graph_network:
        return "multiple"
    nodes = [n for n in layer._inbound_nodes if n in model._network_nodes]
    shapes = {tuple(n.output_shapes) for n in nodes}
    if len(shapes) != 1:
        return "multiple"
    shapes = nodes[0].output_shapes
    if isinstance(layer, InputLayer):
        return "[%s]" % ", ".join(str(s) for s in shapes)
    return str(shapes[0]) if len(shapes) == 1 else str(list(shapes))


def print_summary(model, line_length=None, positions=None, print_fn=None):
    print_fn = print_fn or print
    sequential_like = _is_sequential_like(model)
    layers = model.layers
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [.45, .85, 1.]
        header = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [.33, .55, .67, 1.]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def print_row(fields):
        line = ""
        for i, field in enumerate(fields):
            if i > 0:
                line = line[:-1] + " "
            line += str(field)
            line = line[:positions[i]]
            line += " " * (positions[i] - len(line))
        print_fn(line)

    print_fn('Model: "%s"' % model.name)
    print_fn("_" * line_length)
    print_row(header)
    print_fn("=" * line_length)
    for index, layer in enumerate(layers):
        name = "%s (%s)" % (layer.name, type(layer).__name__)
        params = layer.count_params() if layer.built else 0
        fields = [name, _output_shape(model, layer), params]
        if sequential_like:
            print_row(fields)
        else:
            connections = []
            for node in layer._inbound_nodes:
                if node not in model._network_nodes:
                    continue
                for history in node.inbound_history:
                    if history is None:
                        continue
                    inbound, node_index, tensor_index = history
                    own = [n for n in inbound._inbound_nodes if n in model._network_nodes]
                    key = own.index(inbound._inbound_nodes[node_index])
                    connections.append("%s[%d][%d]" % (inbound.name, key, tensor_index))
            print_row(fields + [connections[0] if connections else ""])
            for connection in connections[1:]:
                print_row(["", "", "", connection])
        print_fn(("=" if index == len(layers) - 1 else "_") * line_length)
    trainable = count_params(model.trainable_weights)
    non_trainable = count_params(model.non_trainable_weights)
    print_fn("Total params: {:,}".format(trainable + non_trainable))
    print_fn("Trainable params: {:,}".format(trainable))
    print_fn("Non-trainable params: {:,}".format(non_trainable))
    print_fn("_" * line_length)
