"""Keras' Embedding: integer ids [batch, ...] -> vectors [batch, ..., output_dim]."""
import tfteach as tf
from tfteach.keras.engine.base_layer import Layer
from tfteach.keras.layers.weight_options import set_weight_options, weight_options_config

__all__ = ["Embedding"]


class Embedding(Layer):
    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs and input_length is not None:
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        set_weight_options(self, ("embeddings",), locals())
        self.mask_zero, self.input_length = mask_zero, input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          dtype="float32")
        self.built = True

    def call(self, inputs):
        if inputs.dtype.base_dtype not in (tf.int32, tf.int64):
            inputs = tf.cast(inputs, tf.int32)
        return tf.nn.embedding_lookup(self.embeddings, inputs)

    def compute_output_shape(self, input_shape):
        return tuple(tf.TensorShape(input_shape).as_list()) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim})
        config.update(weight_options_config(self))
        config.update({"mask_zero": self.mask_zero, "input_length": self.input_length})
        return config
