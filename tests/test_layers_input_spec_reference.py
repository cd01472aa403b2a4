"""tf.layers check their inputs against their InputSpec before they build or add ops,
as TF 1.15's layers do (layers/base.py assert_input_compatibility): a Dense given a
vector, a Conv2D given an image without a batch axis, an input of unknown rank, and a
built layer called on inputs of another width are refused with TF 1.15's words, where
they used to fail later with a MatMul's or Conv2D's shape error (or, for a layer called
again, build a graph that failed when run). The error class is checked against
TensorFlow; the words are TF 1.15's (TF 2's Keras quotes the layer's name and prints
the shape as a tuple)."""
import types

import pytest

import tfteach
from tf_reference import build_error, tensorflow_v1, tf1_behaviour

# tf_keras warns that tf.layers is deprecated at every call.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _tf_layers():
    """TF 2.21 keeps TF1's layers in tf_keras (legacy_tf_layers)."""
    pytest.importorskip("tf_keras")
    from tf_keras.src.legacy_tf_layers import convolutional, core, pooling
    names = {}
    for module in (core, convolutional, pooling):
        names.update({k: getattr(module, k) for k in dir(module) if not k.startswith("_")})
    return types.SimpleNamespace(**names)

CASES = {
    "dense of a vector": (
        lambda tf, layers: layers.dense(tf.zeros([2]), 3),
        "Input 0 of layer dense is incompatible with the layer: : expected min_ndim=2, "
        "found ndim=1. Full shape received: [2]"),
    "dense of unknown rank": (
        lambda tf, layers: layers.dense(tf.placeholder(tf.float32), 3),
        "Input 0 of layer dense is incompatible with the layer: its rank is undefined, but "
        "the layer requires a defined rank."),
    "conv2d without a batch axis": (
        lambda tf, layers: layers.conv2d(tf.zeros([4, 4, 1]), 2, 3),
        "Input 0 of layer conv2d is incompatible with the layer: expected ndim=4, found "
        "ndim=3. Full shape received: [4, 4, 1]"),
    "max_pooling2d without a batch axis": (
        lambda tf, layers: layers.max_pooling2d(tf.zeros([4, 4, 1]), 2, 2),
        "Input 0 of layer max_pooling2d is incompatible with the layer: expected ndim=4, "
        "found ndim=3. Full shape received: [4, 4, 1]"),
    "a dense layer called on another width": (
        lambda tf, layers: (lambda layer: (layer(tf.zeros([1, 3])), layer(tf.zeros([1, 4]))))(
            layers.Dense(2)),
        "Input 0 of layer dense is incompatible with the layer: expected axis -1 of input "
        "shape to have value 3 but received input with shape [1, 4]"),
    "a conv layer called on other channels": (
        lambda tf, layers: (lambda layer: (layer(tf.zeros([1, 5, 5, 3])), layer(tf.zeros([1, 5, 5, 2]))))(
            layers.Conv2D(2, 3)),
        "Input 0 of layer conv2d is incompatible with the layer: expected axis -1 of input "
        "shape to have value 3 but received input with shape [1, 5, 5, 2]"),
}


@pytest.mark.parametrize("label", sorted(CASES))
def test_layers_refuse_inputs_their_spec_does_not_allow(label):
    build, words = CASES[label]
    tensorflow_v1()
    layers = _tf_layers()
    with tf1_behaviour() as v1:
        theirs = build_error(v1, build, layers)
    ours = build_error(tfteach, build, tfteach.layers)
    assert isinstance(theirs, ValueError)
    if label != "dense of unknown rank":   # TF 2's Dense builds first and says so; 1.15 checks
        assert "is incompatible with the layer" in str(theirs)
    assert type(ours) is ValueError
    assert str(ours) == words


def test_a_layer_called_again_on_its_width_reuses_its_variables():
    with tfteach.Graph().as_default():
        layer = tfteach.layers.Dense(2)
        layer(tfteach.zeros([1, 3]))
        layer(tfteach.placeholder(tfteach.float32, [None, 3]))
        assert len(tfteach.trainable_variables()) == 2
