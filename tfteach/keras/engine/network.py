"""The graph of layers behind a functional `Model(inputs, outputs)`.

`Model(inputs, outputs)` walks the `_keras_history` links back from `outputs` to
`inputs` and keeps the nodes (layer calls) in an order where every node comes after the
nodes that produce its inputs. Calling the model on new tensors replays those nodes;
saving the model writes each layer's config with the nodes that feed it, as Keras does.
"""
from tfteach.keras.engine.input_layer import InputLayer

__all__ = ["map_graph_network", "run_internal_graph", "functional_config",
           "reconnect_from_config"]


def map_graph_network(inputs, outputs):
    """(nodes in topological order, layers in order of first use)."""
    input_ids = {id(t) for t in inputs}
    nodes, seen = [], set()

    def visit(tensor):
        history = getattr(tensor, "_keras_history", None)
        if history is None:
            raise ValueError("Output tensors to a Model must be the output of a "
                             "TensorFlow `Layer` (thus holding past layer metadata). "
                             "Found: " + str(tensor))
        layer, node_index, _ = history
        node = layer._inbound_nodes[node_index]
        if id(node) in seen:
            return
        if id(tensor) not in input_ids:
            if isinstance(layer, InputLayer):
                raise ValueError("Graph disconnected: cannot obtain value for tensor %s "
                                 "at layer \"%s\". The following previous layers were "
                                 "accessed without issue: %s"
                                 % (tensor, layer.name,
                                    [n.layer.name for n in nodes]))
            for parent in node.input_tensors:
                visit(parent)
        seen.add(id(node))
        nodes.append(node)

    for tensor in outputs:
        visit(tensor)
    layers = []
    for node in nodes:
        if not any(node.layer is layer for layer in layers):
            layers.append(node.layer)
    return nodes, layers


def run_internal_graph(model, inputs):
    """Apply the model's layers to new input tensors, node by node."""
    values = {id(t): new for t, new in zip(model.inputs, inputs)}
    for node in model._network_nodes:
        if isinstance(node.layer, InputLayer):
            continue
        args = [values[id(t)] for t in node.input_tensors]
        outputs = node.layer(args if len(args) > 1 else args[0])
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        for old, new in zip(node.output_tensors, outputs):
            values[id(old)] = new
    return [values[id(t)] for t in model.outputs]


def _node_key(model, node):
    """The index of `node` among its layer's nodes that belong to this model."""
    own = [n for n in node.layer._inbound_nodes if id(n) in model._node_ids]
    return own.index(node)


def functional_config(model):
    """Keras 2's functional config: layers with their inbound nodes, inputs, outputs."""
    model._node_ids = {id(n) for n in model._network_nodes}
    layer_configs = []
    for layer in model._network_layers:
        inbound = []
        for node in layer._inbound_nodes:
            if id(node) not in model._node_ids or not node.inbound_history:
                continue
            inbound.append([[h[0].name, _node_key(model, h[0]._inbound_nodes[h[1]]),
                             h[2], {}] for h in node.inbound_history])
        layer_configs.append({"name": layer.name, "class_name": type(layer).__name__,
                              "config": layer.get_config(), "inbound_nodes": inbound})

    def refs(tensors):
        out = []
        for t in tensors:
            layer, index, tensor_index = t._keras_history
            out.append([layer.name, _node_key(model, layer._inbound_nodes[index]),
                        tensor_index])
        return out
    return {"name": model.name, "layers": layer_configs,
            "input_layers": refs(model.inputs), "output_layers": refs(model.outputs)}


def reconnect_from_config(config, deserialize_layer):
    """(inputs, outputs) rebuilt from a functional config (layers created anew)."""
    created, produced = {}, {}     # name -> layer; (name, node) -> output tensors
    pending = list(config["layers"])
    while pending:
        progress = False
        for entry in list(pending):
            name = entry["config"].get("name", entry.get("name"))
            if name not in created:
                created[name] = deserialize_layer(entry)
            layer = created[name]
            nodes = entry.get("inbound_nodes") or []
            if isinstance(layer, InputLayer):
                produced[(name, 0)] = layer._inbound_nodes[0].output_tensors
                pending.remove(entry)
                progress = True
                continue
            done = sum(1 for key in produced if key[0] == name)
            for node in nodes[done:]:
                node = node["args"] if isinstance(node, dict) else node
                refs = [r for r in node if isinstance(r, (list, tuple))]
                if any((r[0], r[1]) not in produced for r in refs):
                    break
                args = [produced[(r[0], r[1])][r[2]] for r in refs]
                out = layer(args if len(args) > 1 else args[0])
                produced[(name, done)] = out if isinstance(out, (list, tuple)) else [out]
                done += 1
                progress = True
            if done == len(nodes):
                pending.remove(entry)
        if not progress:
            raise ValueError("Could not rebuild the model: layers %s never got their "
                             "inputs" % [e.get("name") for e in pending])

    def tensors(refs):
        return [produced[(r[0], r[1])][r[2]] for r in refs]
    return tensors(config["input_layers"]), tensors(config["output_layers"])
