"""`tf.keras.Model`: a Layer made of layers, with compile / fit / evaluate / predict.

Three ways to make one, as in Keras:
  functional   Model(inputs, outputs)      layers found from the tensors' history
  Sequential   (sequential.py)             a stack, built as a functional graph
  subclassed   class M(Model): call(...)   layers kept as attributes; built on the
                                           first call or by fit from the data's shape
`compile` builds, in the default graph, the target placeholders, the loss, the metrics
and the optimizer's update ops; `fit` feeds NumPy batches to `sess.run` in the Session of
`backend.get_session()` with the learning phase set to True.
"""
import itertools

import numpy as np

import tfteach as tf
from tfteach.keras import backend, optimizers
from tfteach.keras.engine import arrays, compiled, dataset_input, eager_training, network
from tfteach.keras.engine import training_loop
from tfteach.keras.engine.base_layer import Layer, _shape_tuple

__all__ = ["Model"]


def _absent(item, items):
    """`item not in items` by identity: with TF 2's tensor equality `==` on variables is
    elementwise (a tensor), so `in` must not ask it."""
    return all(item is not other for other in items)


class Model(Layer):
    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        super().__init__(name=kwargs.pop("name", None), trainable=kwargs.pop("trainable",
                                                                               True))
        self.inputs, self.outputs = [], []
        self._network_nodes, self._network_layers = [], []
        self._is_graph_network = False
        self._compiled = False
        self.optimizer = None
        self.stop_training = False
        self.history = None
        if inputs is not None and outputs is not None:
            self._init_graph_network(inputs, outputs)

    # -- the graph of layers ------------------------------------------------------------------
    def _init_graph_network(self, inputs, outputs):
        self._nested_inputs, self._nested_outputs = inputs, outputs
        self.inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        self.outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        self._network_nodes, self._network_layers = network.map_graph_network(
            self.inputs, self.outputs)
        self._is_graph_network = True
        self.built = True
        self._input_layers = [t._keras_history[0] for t in self.inputs]
        self._output_layers = [t._keras_history[0] for t in self.outputs]
        self.input_names = [layer.name for layer in self._input_layers]
        self.output_names = [layer.name for layer in self._output_layers]
        if backend.executing_eagerly():
            # fit/evaluate/predict check the data against the Inputs' Keras tensors
            self._eager_input_shapes = list(self.inputs)
            self._eager_input_names = list(self.input_names)

    def _node_attr(self, attr, what):
        # A graph network is its own first call (Keras' first inbound node, made when the
        # network is): `model.input`, `.output` and their shapes are those of the tensors
        # it was built from, whatever other tensors it was called on since.
        if not self._is_graph_network:
            return Layer._node_attr(self, attr, what)
        tensors = self.inputs if what == "input" else self.outputs
        values = tensors if attr.endswith("_tensors") else [_shape_tuple(t)
                                                            for t in tensors]
        return values[0] if len(values) == 1 else values

    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._network_layers)
        return list(self._layers)

    def get_layer(self, name=None, index=None):
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError("Was asked to retrieve layer at index " + str(index) +
                                 " but model only has " + str(len(self.layers)) +
                                 " layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: " + str(name))

    def _sublayers(self):
        return [layer for layer in self.layers if layer is not self]

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        weights = list(self._trainable_weights)
        for layer in self._sublayers():
            weights += [w for w in layer.trainable_weights if _absent(w, weights)]
        return weights

    @property
    def non_trainable_weights(self):
        weights = list(self._non_trainable_weights)
        for layer in self._sublayers():
            source = layer.weights if not self.trainable else layer.non_trainable_weights
            weights += [w for w in source if _absent(w, weights)]
        if not self.trainable:
            weights = [w for w in self._trainable_weights if _absent(w, weights)] + weights
        return weights

    @property
    def weights(self):
        """Layer by layer, each layer's trainable then other weights (Keras' order,
        the order of get_weights/set_weights and of HDF5 files)."""
        weights = []
        for layer in self._sublayers():
            weights += [w for w in layer.weights if _absent(w, weights)]
        return weights + [w for w in self._trainable_weights + self._non_trainable_weights
                          if _absent(w, weights)]

    variables = weights

    def set_weights(self, weights):
        params = self.weights
        if len(params) != len(weights):
            raise ValueError("You called `set_weights(weights)` on model %s with a weight "
                             "list of length %d, but the model was expecting %d weights."
                             % (self.name, len(weights), len(params)))
        Layer.set_weights(self, weights)

    def _sublayer_dependencies(self):
        # Sequential and functional models name their layers as TF 2's Keras does.
        if not self._is_graph_network and not hasattr(self, "_stack"):
            return Layer._sublayer_dependencies(self)
        layers = self.layers
        with_weights = [layer for layer in layers if layer.weights]
        return ([("layer_with_weights-%d" % i, layer) for i, layer in enumerate(with_weights)]
                + [("layer-%d" % i, layer) for i, layer in enumerate(layers)])

    @property
    def updates(self):
        return [u for layer in self._sublayers() for u in layer.updates] + self._updates

    @property
    def losses(self):
        return [l for layer in self._sublayers() for l in layer.losses] + self._losses

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("A subclassed Model must define call()")
        flat = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        outputs = network.run_internal_graph(self, flat)
        return outputs if len(outputs) > 1 else outputs[0]

    def build(self, input_shape):
        """Subclassed models: build by calling on a placeholder of that shape."""
        if self._is_graph_network:
            self.built = True
            return
        shape = tf.TensorShape(input_shape).as_list()
        self._set_inputs(tf.placeholder(backend.floatx(), shape=shape, name="input_1"))

    def _build_on_call(self, input_shape):
        # A model's layers build themselves when `call` first uses them.
        self.built = True

    def _set_inputs(self, inputs):
        outputs = self(inputs)
        self.inputs = [inputs]
        self.outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        self.input_names = ["input_1"]
        self.output_names = ["output_%d" % (i + 1) for i in range(len(self.outputs))]
        self.built = True

    def _build_from_data(self, x):
        """Subclassed / unbuilt models learn their input shape from the first data."""
        if self.outputs:
            return
        first = arrays.as_list(x)[0]
        dtype = backend.floatx() if first.dtype.kind == "f" else tf.as_dtype(first.dtype)
        self._set_inputs(tf.placeholder(dtype, shape=(None,) + first.shape[1:],
                                        name="input_1"))

    # -- compile -------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                **kwargs):
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._loss_spec = loss
        self._metric_spec = list(metrics or [])
        self._loss_weights = loss_weights
        if loss is None:
            raise ValueError("The model must be compiled with a loss: compile(loss=...)")
        self._resolve_losses(len(self.outputs) or 1)   # unknown names fail now
        self._compiled = True
        self._train_function = None
        if backend.executing_eagerly():
            self._prepare_eager()
        elif self.outputs:
            self._build_training_graph()

    def _prepare_eager(self):
        compiled.prepare_eager(self)

    def _resolve_losses(self, count):
        return compiled.resolve_losses(self, count)

    def _build_training_graph(self):
        compiled.build_training_graph(self)

    def _train_ops(self):
        return compiled.train_ops(self)

    # -- running -------------------------------------------------------------------------------
    def _feed(self, inputs, targets=None, training=False):
        feed = dict(zip(self.inputs, inputs))
        if targets is not None:
            feed.update(zip(self.targets, targets))
        phase = backend._learning_phase_placeholder()
        if phase is not None and phase.graph is self.inputs[0].graph:
            feed[phase] = training
        return feed

    def _standardize(self, x, y=None, check_targets=True):
        if x is None:
            raise ValueError("Please provide data as arrays: fit(x=..., y=...)")
        if backend.executing_eagerly():
            return self._standardize_eager(x, y)
        self._build_from_data(x)
        if not self._compiled and y is not None:
            raise RuntimeError("You must compile your model before training/testing. "
                               "Use `model.compile(optimizer, loss)`.")
        if self._compiled and getattr(self, "targets", None) is None:
            self._build_training_graph()
        inputs = arrays.check_arrays(arrays.as_list(x), self.inputs,
                                     self.input_names, "input")
        targets = None
        if y is not None:
            targets = arrays.check_targets(arrays.as_list(y), self.outputs,
                                           self.output_names, self._loss_functions,
                                           self._target_is_sparse, self._is_graph_network)
            arrays.check_sample_counts(inputs, targets)
        return inputs, targets

    def _standardize_eager(self, x, y):
        if y is not None and not self._compiled:
            raise RuntimeError("You must compile your model before training/testing. "
                               "Use `model.compile(optimizer, loss)`.")
        inputs = arrays.as_list(x)
        self._build_eager_from_data(inputs)
        shapes = getattr(self, "_eager_input_shapes", None)
        if shapes:
            inputs = arrays.check_arrays(inputs, shapes, self._eager_input_names, "input")
        inputs = [a.astype(backend.floatx()) if a.dtype.kind == "f" else a
                  for a in inputs]
        targets = None
        if y is not None:
            targets = arrays.as_list(y)
            arrays.check_sample_counts(inputs, targets)
        return inputs, targets

    def _build_eager_from_data(self, inputs):
        """Subclassed models build on their first call; nothing to do."""

    # -- one step, in a Session (graph mode) or eagerly ------------------------------------
    def _train_step(self, inputs, targets):
        if backend.executing_eagerly():
            return eager_training.train_step(self, inputs, targets)
        fetches = [self.total_loss] + self._metric_tensors
        updates = self._train_ops()    # first: get_session initializes the new slots
        values = backend.get_session().run(fetches + updates,
                                           feed_dict=self._feed(inputs, targets, True))
        return [float(v) for v in values[:len(fetches)]]

    def _test_step(self, inputs, targets):
        if backend.executing_eagerly():
            return eager_training.test_step(self, inputs, targets)
        fetches = [self.total_loss] + self._metric_tensors
        values = backend.get_session().run(fetches,
                                           feed_dict=self._feed(inputs, targets, False))
        return [float(v) for v in values]

    def _predict_step(self, inputs):
        if backend.executing_eagerly():
            return eager_training.predict_step(self, inputs)
        return backend.get_session().run(self.outputs, feed_dict=self._feed(inputs))

    def _run_batches(self, fetches, inputs, targets, batch_size, training, on_batch=None,
                     targets_ops=()):
        """Run `fetches` on each batch; returns the sample-weighted means."""
        count = len(inputs[0])
        totals = None
        for index, (start, end) in enumerate(arrays.make_batches(count, batch_size)):
            batch_in = [a[start:end] for a in inputs]
            batch_out = None if targets is None else [a[start:end] for a in targets]
            values = np.asarray(self._test_step(batch_in, batch_out), dtype=np.float64)
            totals = values * (end - start) if totals is None else \
                totals + values * (end - start)
            if on_batch is not None:
                on_batch(index, end - start, values, totals / end)
        return totals / max(count, 1)

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0., validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None,
            validation_steps=None, validation_freq=1, **kwargs):
        if class_weight is not None or sample_weight is not None:
            raise NotImplementedError("tfteach's Keras has no sample/class weights yet")
        if dataset_input.is_dataset(x):
            return self._fit_dataset(x, epochs, verbose, callbacks, validation_data,
                                     initial_epoch, steps_per_epoch, validation_steps,
                                     validation_freq)
        batch_size = batch_size or 32
        inputs, targets = self._standardize(x, y)
        val_inputs = val_targets = None
        if validation_data is not None:
            val_inputs, val_targets = self._standardize(validation_data[0],
                                                        validation_data[1])
        elif validation_split and 0. < validation_split < 1.:
            split = int(len(inputs[0]) * (1. - validation_split))
            val_inputs = [a[split:] for a in inputs]
            val_targets = [a[split:] for a in targets]
            inputs = [a[:split] for a in inputs]
            targets = [a[:split] for a in targets]
        count = len(inputs[0])

        def epoch_batches(epoch):
            order = np.arange(count)
            if shuffle:
                np.random.shuffle(order)
            for start, end in arrays.make_batches(count, batch_size):
                index = order[start:end]
                yield [a[index] for a in inputs], [a[index] for a in targets]

        validate = None
        if val_inputs is not None:
            def validate():
                return self._run_batches(None,
                                         val_inputs, val_targets, batch_size, False)
        info = "Train on %d samples" % count + (
            ", validate on %d samples" % len(val_inputs[0]) if val_inputs is not None
            else "")
        return training_loop.fit_loop(self, epoch_batches, epochs, count, "sample",
                                      verbose, callbacks, validate, initial_epoch,
                                      validation_freq, info, batch_size=batch_size)

    def _fit_dataset(self, dataset, epochs, verbose, callbacks, validation_data,
                     initial_epoch, steps, validation_steps, validation_freq):
        """fit(dataset): each element a batch (x, y) (dataset_input.py)."""
        source = dataset_input.DatasetBatches(dataset)
        first_pass = source.epoch(steps)
        first = next(first_pass, None)
        if first is None:
            raise ValueError("The dataset given to fit() has no elements")
        self._standardize(*self._dataset_pair(first))      # builds and checks the model
        pending = [itertools.chain([first], first_pass)]

        def epoch_batches(epoch):
            elements = pending.pop() if pending else source.epoch(steps)
            for element in elements:
                yield self._standardize(*self._dataset_pair(element))

        validate = None
        if validation_data is not None:
            if dataset_input.is_dataset(validation_data):
                val_source = dataset_input.DatasetBatches(validation_data)

                def validate():
                    return self._dataset_means(val_source, validation_steps)
            else:
                val_inputs, val_targets = self._standardize(validation_data[0],
                                                            validation_data[1])

                def validate():
                    return self._run_batches(None, val_inputs, val_targets, 32, False)
        # In a graph TF 1.15's loop over a Dataset counts steps: the epoch's loss is the
        # mean of the batches' losses; eagerly its v2 loop's is per sample.
        return training_loop.fit_loop(self, epoch_batches, epochs, steps, "step", verbose,
                                      callbacks, validate, initial_epoch, validation_freq,
                                      loss_per_step=not backend.executing_eagerly())

    def _dataset_pair(self, element):
        x, y = dataset_input.split(element)
        if y is None:
            raise ValueError("The dataset's elements must be (inputs, targets) pairs to "
                             "train or evaluate a model; this one gives %s"
                             % (type(element).__name__,))
        return x, y

    def _dataset_means(self, source, steps, on_batch=None):
        """The means of the test step over a dataset's batches: per sample, except the
        loss in a graph, the mean of the batches' losses (TF 1.15's step-counting loop;
        executing eagerly TF 1.15 runs its v2 loop, per sample)."""
        totals, seen, losses = None, 0, []
        for index, element in enumerate(source.epoch(steps)):
            inputs, targets = self._standardize(*self._dataset_pair(element))
            size = len(inputs[0])
            values = np.asarray(self._test_step(inputs, targets), dtype=np.float64)
            totals = values * size if totals is None else totals + values * size
            seen += size
            losses.append(values[0])
            if on_batch is not None:
                on_batch(index, values, totals / seen)
        if totals is None:
            raise ValueError("The dataset given to evaluate() has no elements")
        means = totals / seen
        if not backend.executing_eagerly():
            means[0] = np.mean(losses)
        return means

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, validation_steps=None,
                      validation_freq=1, class_weight=None, max_queue_size=10, workers=1,
                      use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """Train on batches `(x, y)` drawn from `generator`, `steps_per_epoch` of them
        per epoch (default: `len(generator)`). `workers` is accepted and ignored:
        batches are made in this thread."""
        if steps_per_epoch is None:
            if not hasattr(generator, "__len__"):
                raise ValueError("`steps_per_epoch=None` is only valid for a generator "
                                 "based on the `keras.utils.Sequence` class. Please "
                                 "specify `steps_per_epoch` or use the "
                                 "`keras.utils.Sequence` class.")
            steps_per_epoch = len(generator)
        first_x, first_y = next(generator)
        self._standardize(first_x, first_y)
        pending = [(first_x, first_y)]

        def epoch_batches(epoch):
            for _ in range(steps_per_epoch):
                x, y = pending.pop() if pending else next(generator)
                yield self._standardize(x, y)

        validate = None
        if validation_data is not None:
            val_inputs, val_targets = self._standardize(validation_data[0],
                                                        validation_data[1])

            def validate():
                return self._run_batches(None,
                                         val_inputs, val_targets, 32, False)
        return training_loop.fit_loop(self, epoch_batches, epochs, steps_per_epoch,
                                      "step", verbose, callbacks, validate, initial_epoch,
                                      validation_freq)

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, **kwargs):
        if not self._compiled:
            raise RuntimeError("You must compile your model before training/testing. "
                               "Use `model.compile(optimizer, loss)`.")
        if dataset_input.is_dataset(x):
            return self._evaluate_dataset(x, verbose, steps)
        inputs, targets = self._standardize(x, y)
        count = len(inputs[0])
        show = self._evaluation_bar(verbose, count, "sample")

        def on_batch(index, size, values, running):
            show(min(count, (index + 1) * (batch_size or 32)), values, running)
        means = self._run_batches(None, inputs, targets, batch_size or 32, False,
                                  on_batch)
        values = [float(v) for v in means]
        return values[0] if len(values) == 1 else values

    def _evaluation_bar(self, verbose, target, unit):
        """evaluate()'s progress bar: `show(position, values, running means)` (a no-op
        unless verbose == 1), `target` samples or steps (None: unknown)."""
        if verbose != 1:
            return lambda position, values, running: None
        from tfteach.keras.utils.progbar import Progbar
        bar = Progbar(target, stateful_metrics=self.metrics_names[1:], unit_name=unit)

        def show(position, values, running):
            bar.update(position, [(self.metrics_names[0], float(values[0]))] +
                       list(zip(self.metrics_names[1:], running[1:])))
        return show

    def _evaluate_dataset(self, dataset, verbose, steps):
        show = self._evaluation_bar(verbose, steps, "step")

        def on_batch(index, values, running):
            show(index + 1, values, running)
        values = [float(v) for v in self._dataset_means(
            dataset_input.DatasetBatches(dataset), steps, on_batch)]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        if dataset_input.is_dataset(x):
            batches = (self._standardize(dataset_input.split(element)[0])[0] for element
                       in dataset_input.DatasetBatches(x).epoch(steps))
        else:
            inputs, _ = self._standardize(x)
            batches = ([a[start:end] for a in inputs] for start, end
                       in arrays.make_batches(len(inputs[0]), batch_size or 32))
        chunks = None
        for batch in batches:
            values = self._predict_step(batch)
            chunks = chunks or [[] for _ in values]
            for chunk, value in zip(chunks, values):
                chunk.append(value)
        results = [np.concatenate(c) for c in chunks]
        return results[0] if len(results) == 1 else results

    def train_on_batch(self, x, y, sample_weight=None, class_weight=None,
                       reset_metrics=True):
        inputs, targets = self._standardize(x, y)
        values = self._train_step(inputs, targets)
        return values[0] if len(values) == 1 else values

    def test_on_batch(self, x, y, sample_weight=None, reset_metrics=True):
        return self.evaluate(x, y, batch_size=len(arrays.as_list(x)[0]), verbose=0)

    def predict_on_batch(self, x):
        return self.predict(x, batch_size=len(arrays.as_list(x)[0]))

    # -- inspection and saving (implemented in their own modules) ------------------------------
    def summary(self, line_length=None, positions=None, print_fn=None):
        from tfteach.keras.utils.layer_utils import print_summary
        print_summary(self, line_length=line_length, positions=positions,
                      print_fn=print_fn)

    def get_weights(self):
        return backend.batch_get_value(self.weights)

    def count_params(self):
        return int(sum(np.prod(w.get_shape().as_list(), dtype=np.int64)
                       for w in self.weights))

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        from tfteach.keras.saving import hdf5_format
        hdf5_format.save_model(self, filepath, overwrite, include_optimizer)

    def save_weights(self, filepath, overwrite=True, save_format=None):
        from tfteach.keras.saving import hdf5_format
        hdf5_format.save_weights(self, filepath, overwrite)

    def load_weights(self, filepath, by_name=False):
        from tfteach.keras.saving import hdf5_format
        hdf5_format.load_weights(self, filepath, by_name)

    def get_config(self):
        if not self._is_graph_network:
            raise NotImplementedError("A subclassed Model has no config: save its weights "
                                      "(save_weights) instead of the whole model.")
        return network.functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tfteach.keras.layers import deserialize
        inputs, outputs = network.reconnect_from_config(
            config, lambda entry: deserialize(entry, custom_objects))
        return cls(inputs=inputs, outputs=outputs, name=config.get("name"))

    def to_json(self, **kwargs):
        import json
        from tfteach.keras.saving.hdf5_format import _json_default
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config(),
                           "keras_version": "2.2.4-tf", "backend": "tensorflow"},
                          default=_json_default, **kwargs)

