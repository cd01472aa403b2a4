"""`tfteach.core.*`: TensorFlow's `tensorflow.core` import paths (tfteach/core/).

A TF program turns Grappler passes off with `from tensorflow.core.protobuf import
rewriter_config_pb2`, and writes summaries or reads GraphDefs and event files through
`tensorflow.core.framework` / `tensorflow.core.util`: with `tensorflow` replaced by
`tfteach` the same lines must work and reach the classes tfteach itself uses.
"""
import importlib

import numpy as np
import pytest

import tfteach as tf
from tfteach.runtime import optimizer

# mirror module -> the message classes (or enum values) a program takes from it
MIRRORED = {
    "protobuf.config_pb2": ("ConfigProto", "GPUOptions", "GraphOptions", "OptimizerOptions",
                            "RunOptions", "RunMetadata"),
    "protobuf.rewriter_config_pb2": ("RewriterConfig",),
    "protobuf.meta_graph_pb2": ("MetaGraphDef", "CollectionDef", "SignatureDef",
                                "TensorInfo", "AssetFileDef"),
    "protobuf.saver_pb2": ("SaverDef",),
    "framework.graph_pb2": ("GraphDef",),
    "framework.node_def_pb2": ("NodeDef",),
    "framework.attr_value_pb2": ("AttrValue", "NameAttrList"),
    "framework.tensor_pb2": ("TensorProto",),
    "framework.tensor_shape_pb2": ("TensorShapeProto",),
    "framework.types_pb2": ("DT_FLOAT", "DT_INT32", "DT_STRING", "DT_FLOAT_REF"),
    "framework.summary_pb2": ("Summary", "HistogramProto", "SummaryMetadata"),
    "framework.variable_pb2": ("VariableDef", "SaveSliceInfoDef"),
    "util.event_pb2": ("Event", "SessionLog", "LogMessage", "TaggedRunMetadata"),
}


@pytest.mark.parametrize("module", sorted(MIRRORED))
def test_every_mirrored_name_is_there(module):
    mirror = importlib.import_module("tfteach.core." + module)
    for name in MIRRORED[module]:
        assert hasattr(mirror, name), "tfteach.core.%s has no %s" % (module, name)


@pytest.mark.parametrize("module", sorted(MIRRORED))
def test_tensorflows_module_has_the_same_names(module):
    """The names are TensorFlow's own (the list above is not made up), and the enum
    values of the file formats are TensorFlow's numbers."""
    pytest.importorskip("tensorflow")
    reference = importlib.import_module("tensorflow.core." + module)
    mirror = importlib.import_module("tfteach.core." + module)
    for name in MIRRORED[module]:
        assert hasattr(reference, name), name
        if isinstance(getattr(reference, name), int):
            assert getattr(mirror, name) == getattr(reference, name)


def test_the_options_messages_are_the_ones_tf_gives():
    from tfteach.core.protobuf import config_pb2, rewriter_config_pb2
    assert config_pb2.ConfigProto is tf.ConfigProto
    assert config_pb2.RunOptions is tf.RunOptions
    assert config_pb2.RunMetadata is tf.RunMetadata
    assert rewriter_config_pb2.RewriterConfig().constant_folding == 0   # DEFAULT
    with pytest.raises(ValueError, match='Protocol message RewriterConfig has no "folding"'):
        rewriter_config_pb2.RewriterConfig(folding=2)


def test_a_config_with_every_kind_of_field_is_tensorflows_message_both_ways():
    """TF programs set fields tfteach has no use for (memory optimizer, timeline steps,
    XLA levels, experimental options): accepted, and the ConfigProto's bytes are the ones
    TensorFlow's own ConfigProto parses, and back."""
    tensorflow = pytest.importorskip("tensorflow")
    from google.protobuf import text_format
    from tfteach.core.protobuf import rewriter_config_pb2
    R = rewriter_config_pb2.RewriterConfig
    config = tf.ConfigProto(
        device_count={"GPU": 0}, allow_soft_placement=True, log_device_placement=False,
        inter_op_parallelism_threads=2, operation_timeout_in_ms=1000,
        gpu_options=tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.5),
        graph_options=tf.GraphOptions(
            timeline_step=3, build_cost_model=1, place_pruned_graph=True,
            optimizer_options=tf.OptimizerOptions(
                opt_level=tf.OptimizerOptions.L0,
                global_jit_level=tf.OptimizerOptions.ON_1),
            rewrite_options=R(memory_optimization=R.NO_MEM_OPT,
                              meta_optimizer_iterations=R.ONE, constant_folding=R.OFF,
                              layout_optimizer=R.OFF, optimizers=["constfold"])),
        experimental=tf.ConfigProto.Experimental(disable_output_partition_graphs=True))
    config.graph_options.rewrite_options.arithmetic_optimization = R.OFF
    theirs = tensorflow.compat.v1.ConfigProto.FromString(config.SerializeToString())
    their_rewriter = importlib.import_module(
        "tensorflow.core.protobuf.rewriter_config_pb2").RewriterConfig
    assert theirs.graph_options.rewrite_options.memory_optimization == \
        their_rewriter.NO_MEM_OPT
    assert text_format.MessageToString(theirs) == text_format.MessageToString(config)
    assert tf.ConfigProto.FromString(theirs.SerializeToString()) == config
    # the text form a TF program may keep its options in
    parsed = text_format.Parse("graph_options { rewrite_options { remapping: OFF } }",
                               tf.ConfigProto())
    assert parsed.graph_options.rewrite_options.remapping == R.OFF
    with tf.Graph().as_default():
        total = tf.constant(2.0) * 3.0 + 1.0
        for options in (config, parsed):
            with tf.Session(config=options) as sess:
                assert sess.run(total) == 7.0
    with pytest.raises(TypeError):                       # protobuf's type check
        tf.ConfigProto(log_device_placement="yes")
    with pytest.raises(AttributeError):                  # a message field is not assigned
        config.gpu_options = tf.GPUOptions()


def test_rewriter_config_from_its_tf_path_turns_a_pass_off():
    """The lines a TF program writes to switch constant folding off."""
    from tfteach.core.protobuf import rewriter_config_pb2
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 3])        # the batch's size is fed
        y = x * tf.cast(tf.shape(x)[0], tf.float32) + 1.0
    off = tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=rewriter_config_pb2.RewriterConfig(
            constant_folding=rewriter_config_pb2.RewriterConfig.OFF)))
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    folded = {}
    for label, config in (("on", None), ("off", off)):
        with tf.Session(graph=graph, config=config) as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(y, {x: feed}), feed * 2 + 1)
            folded[label] = [r.nodes for r in optimizer.rewrites_of(sess, [y], [x])
                             if r.pass_name == "shape_specialisation"]
    assert folded["on"] == [("Shape", "strided_slice", "Cast")]
    assert folded["off"] == []


def test_a_summary_made_by_hand_is_written_and_read_back(tmp_path):
    """`summary_pb2.Summary(value=[Summary.Value(tag, simple_value)])`, the TF 1.x idiom
    for logging a number computed outside the graph, written by tf.summary.FileWriter
    and read back with event_pb2.Event from the event file."""
    from tfteach.core.framework import summary_pb2
    from tfteach.core.util import event_pb2
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="accuracy",
                                                                    simple_value=0.75)])
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(summary, global_step=3)
    writer.close()
    events = []
    for path in tmp_path.iterdir():
        for record in tf.python_io.tf_record_iterator(str(path)):
            events.append(event_pb2.Event.FromString(record))
    scalars = [(e.step, v.tag, v.simple_value) for e in events for v in e.summary.value]
    assert scalars == [(3, "accuracy", 0.75)]


def test_a_graph_def_parsed_with_graph_pb2_imports(tmp_path):
    from tfteach.core.framework import graph_pb2
    graph = tf.Graph()
    with graph.as_default():
        tf.add(tf.constant(2.0, name="a"), tf.constant(3.0, name="b"), name="sum")
    path = tmp_path / "g.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    graph_def = graph_pb2.GraphDef()
    graph_def.ParseFromString(path.read_bytes())
    with tf.Graph().as_default() as loaded:
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            assert sess.run(loaded.get_tensor_by_name("sum:0")) == 5.0
