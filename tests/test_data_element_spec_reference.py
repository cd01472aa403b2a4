"""`element_spec` of datasets and iterators (TF 1.15's DatasetV1 has it: a structure of
`tf.TensorSpec`s, `tf.SparseTensorSpec` for a SparseTensor component), against
TensorFlow: the same reprs in graph mode (`TensorSpec(shape=(?, 3), ...)`, TF 1's
shapes) and executing eagerly (`(None, 3)`), and specs that compare equal to the ones a
program writes.

Before, a dataset had no `element_spec` (AttributeError), `tf.SparseTensorSpec` did not
exist, and `tf.TensorSpec` printed an unknown size as `None` in TF 1 graph programs."""
import contextlib
import importlib.util
import json
import textwrap

import numpy as np
import pytest

import tfteach
from eager_helpers import eager  # noqa: F401 - fixture
from tf_reference import eager_tensorflow_json, tensorflow_v1

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                reason="TensorFlow is not installed")

X = np.zeros((4, 3), np.float32)
PIPELINES = {
    "tuple": lambda tf: tf.data.Dataset.from_tensor_slices((X, np.arange(4))),
    "batched": lambda tf: tf.data.Dataset.from_tensor_slices((X, np.arange(4))).batch(2),
    "dict": lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 2],
                                                           "b": [[1., 2.], [3., 4.]]}),
    "range_map": lambda tf: tf.data.Dataset.range(5).map(lambda x: (x, tf.fill([x], x))),
    "sparse": lambda tf: tf.data.Dataset.from_tensors(
        tf.SparseTensor(indices=[[0, 1]], values=[1.0], dense_shape=[2, 3])).batch(2),
    "strings": lambda tf: tf.data.Dataset.from_tensors(["a", "b"]).padded_batch(
        2, padded_shapes=[None]),
}


@contextlib.contextmanager
def _tf1_shapes(tf):
    """TF 1.15's TensorShape printing (`(?, 3)`, Dimensions) in TensorFlow 2 while the
    block runs (`disable_v2_behavior` does it for good; the other tests keep TF 2's)."""
    if tf is tfteach:
        yield
        return
    from tensorflow.python.framework import tensor_shape
    saved = tensor_shape._TENSORSHAPE_V2_OVERRIDE
    tf.disable_v2_tensorshape()
    try:
        yield
    finally:
        tensor_shape._TENSORSHAPE_V2_OVERRIDE = saved


def _graph_specs(tf):
    out = {}
    with tf.Graph().as_default(), _tf1_shapes(tf):
        for name, build in PIPELINES.items():
            dataset = build(tf)
            iterator = tf.data.make_initializable_iterator(dataset)
            out[name] = (repr(dataset.element_spec), repr(iterator.element_spec))
        spec = tf.data.Dataset.range(3).element_spec
        out["equal"] = (spec == tf.TensorSpec([], tf.int64),
                        spec.is_compatible_with(tf.TensorSpec([None], tf.int64)))
        out["tensor_spec"] = (repr(tf.TensorSpec([None, 3], tf.float32, name="x")),
                              repr(tf.TensorSpec(None, tf.int64)),
                              repr(tf.SparseTensorSpec([None], tf.string)))
    return out


@pytest.mark.parametrize("name", sorted(PIPELINES) + ["equal", "tensor_spec"])
def test_graph_element_spec_as_tensorflow(name):
    assert _graph_specs(tfteach)[name] == _graph_specs(tensorflow_v1())[name]


def test_element_spec_components_are_public_specs():
    with tfteach.Graph().as_default():
        spec = PIPELINES["sparse"](tfteach).element_spec
        assert isinstance(spec, tfteach.SparseTensorSpec)
        assert spec.shape.as_list() == [None, 2, 3] and spec.dtype == tfteach.float32
        x, i = PIPELINES["batched"](tfteach).element_spec
        assert isinstance(x, tfteach.TensorSpec) and x.name is None


EAGER_PROGRAM = """
def run(tf, np):
    D = tf.data.Dataset
    x = np.zeros((4, 3), np.float32)
    batched = D.from_tensor_slices((x, np.arange(4))).batch(2)
    return [repr(batched.element_spec), repr(iter(batched).element_spec),
            repr(D.from_tensors(tf.SparseTensor([[0, 1]], [1.0], [2, 3])).batch(2)
                 .element_spec),
            repr(tf.TensorSpec([None, 3], tf.float32))]
"""


def test_eager_element_spec_as_tensorflow(eager):
    code = "\n".join(["import json", "import numpy as np", "import tensorflow as tf",
                      textwrap.dedent(EAGER_PROGRAM), "print(json.dumps(run(tf, np)))"])
    namespace = {}
    exec(textwrap.dedent(EAGER_PROGRAM), namespace)      # noqa: S102 - the shared program
    assert json.loads(json.dumps(namespace["run"](eager, np))) == eager_tensorflow_json(code)


def _dict_orders(tf):
    """The key order of the dicts a program gets back: TF's nest packs a dict with the
    keys in the order the program wrote them (it flattens them sorted)."""
    with tf.Graph().as_default(), _tf1_shapes(tf):
        dataset = tf.data.Dataset.from_tensor_slices({"b": [[1., 2.], [3., 4.]], "a": [1, 2]})
        mapped = dataset.map(lambda e: {"z": e["a"], "y": e["b"]})
        x = tf.constant(1)
        branches = tf.cond(tf.constant(True), lambda: {"q": x, "p": x},
                           lambda: {"q": x, "p": x})
        return [repr(dataset.element_spec), str(dataset.output_types),
                str(mapped.output_shapes),
                list(tf.data.make_one_shot_iterator(mapped).get_next()), list(branches)]


def test_dicts_keep_the_programs_key_order_as_tensorflow():
    assert _dict_orders(tfteach) == _dict_orders(tensorflow_v1())
