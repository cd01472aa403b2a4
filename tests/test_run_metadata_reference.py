"""`tf.RunMetadata` as a TF program uses it, against TensorFlow's (tf.compat.v1, graph
mode): what a run leaves in it when the same object is given to several runs, and the
protobuf side of it (printing, serializing, ListFields/HasField, the empty cost graph).
Timings differ from run to run, so only the structure is compared. Skipped without
TensorFlow."""
import numpy as np
import pytest

import tfteach
from tests.tf_reference import tensorflow_v1, tf1_behaviour

pytestmark = pytest.mark.reference


@pytest.fixture(autouse=True, scope="module")
def tensorflow_1_15_variables():
    with tf1_behaviour():
        yield


def _square_graph(tf):
    graph = tf.Graph()
    with graph.as_default():
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.square(a, name="b")
    return graph, b


def _reused_metadata(tf):
    """One RunMetadata given to a traced run three times, then to a run that only asks
    for partition graphs, then a traced one, then an untraced one: what each left."""
    graph, b = _square_graph(tf)
    traced = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    seen = []
    with tf.Session(graph=graph) as sess:
        md = tf.RunMetadata()
        for _ in range(3):
            sess.run(b, options=traced, run_metadata=md)
            seen.append(("traced", len(md.step_stats.dev_stats),
                         len(md.partition_graphs), _node_count(md) > 0))
        sess.run(b, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
        seen.append(("partitions", len(md.step_stats.dev_stats), len(md.partition_graphs)))
        sess.run(b, options=traced, run_metadata=md)
        seen.append(("traced", len(md.step_stats.dev_stats), len(md.partition_graphs)))
        sess.run(b, run_metadata=md)
        seen.append(("plain", len(md.step_stats.dev_stats), str(md)))
    return seen


def _node_count(md):
    return sum(len(d.node_stats) for d in md.step_stats.dev_stats)


def test_each_run_replaces_what_the_run_metadata_held():
    """TF's Session parses the run's metadata into the object after every run given one
    (ParseFromString clears it first): stats never pile up across runs, and an untraced
    run leaves it empty. tfteach appended every traced run's stats to the same lists."""
    assert _reused_metadata(tfteach) == _reused_metadata(tensorflow_v1())


def test_the_node_count_of_a_reused_run_metadata_does_not_grow():
    graph, b = _square_graph(tfteach)
    counts = []
    with tfteach.Session(graph=graph) as sess:
        md = tfteach.RunMetadata()
        for _ in range(3):
            sess.run(b, options=tfteach.RunOptions(trace_level=3), run_metadata=md)
            counts.append(_node_count(md))
    assert counts[0] > 0 and counts == [counts[0]] * 3


def _protobuf_side(tf):
    """What a program reads of a RunMetadata as a protobuf message."""
    from google.protobuf import text_format
    their_proto = tensorflow_v1().RunMetadata      # the message TF's programs hold
    graph, b = _square_graph(tf)
    empty = tf.RunMetadata()
    seen = {"empty": (str(empty), repr(empty), empty.ByteSize(), empty.ListFields(),
                      empty.HasField("step_stats"), len(empty.cost_graph.node))}
    with tf.Session(graph=graph) as sess:
        md = tf.RunMetadata()
        sess.run(b, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE,
                                          output_partition_graphs=True), run_metadata=md)
    parsed = their_proto.FromString(md.SerializeToString())
    from_text = text_format.Parse(str(md), their_proto())
    seen["traced"] = (
        [f.name for f, _ in md.ListFields()], md.HasField("step_stats"),
        md.HasField("cost_graph"), md.ByteSize() > 0, len(md.cost_graph.node),
        [d.device for d in parsed.step_stats.dev_stats],
        [d.device for d in from_text.step_stats.dev_stats],
        len(parsed.partition_graphs), len(from_text.partition_graphs),
        all(n.device for p in parsed.partition_graphs for n in p.node),
        str(md) == repr(md), str(md).startswith("step_stats {\n  dev_stats {\n"))
    stats = md.step_stats.dev_stats[0].node_stats[0]
    seen["node_stats"] = (stats.scheduled_micros >= 0, stats.thread_id >= 0,
                          len(stats.memory) >= 0, len(stats.referenced_tensor) >= 0)
    return seen


def test_a_run_metadata_prints_and_serializes_as_tensorflows_message():
    """`print(run_metadata)` showed `<tfteach...RunMetadata object at 0x...>` and
    SerializeToString / ListFields / HasField were missing, cost_graph was None: TF's is
    a protobuf message (text form, bytes TF parses, an empty CostGraphDef)."""
    assert _protobuf_side(tfteach) == _protobuf_side(tensorflow_v1())


def test_a_run_metadata_round_trips_through_tensorflows_message():
    """The bytes carry every node's name, times and output sizes."""
    their_proto = tensorflow_v1().RunMetadata
    graph, b = _square_graph(tfteach)
    md = tfteach.RunMetadata()
    with tfteach.Session(graph=graph) as sess:
        sess.run(b, options=tfteach.RunOptions(trace_level=3), run_metadata=md)
    parsed = their_proto.FromString(md.SerializeToString())
    nodes = md.step_stats.all_nodes()
    assert [n.node_name for d in parsed.step_stats.dev_stats for n in d.node_stats] == \
        [n.node_name for n in nodes]
    assert [n.output[0].tensor_description.allocation_description.allocated_bytes
            for d in parsed.step_stats.dev_stats for n in d.node_stats] == \
        [n.output_bytes for n in nodes]
    assert str(md.step_stats) == str(parsed.step_stats)
    assert str(md.step_stats.dev_stats[0]) == str(parsed.step_stats.dev_stats[0])
    assert repr(nodes[-1]) == str(parsed.step_stats.dev_stats[0].node_stats[-1])


@pytest.mark.parametrize("metadata", [{}, None])
def test_a_false_run_metadata_is_ignored_as_tensorflow_ignores_it(metadata):
    def outcome(tf):
        graph, b = _square_graph(tf)
        with tf.Session(graph=graph) as sess:
            return sess.run(b, options=tf.RunOptions(trace_level=3),
                            run_metadata=metadata).tolist()
    assert outcome(tfteach) == outcome(tensorflow_v1()) == [1.0, 4.0]


def test_run_options_asking_nothing_take_the_fast_path_and_give_the_same_values():
    """A MonitoredSession passes a default RunOptions to every run (as TF's does): such a
    run is the plain run, fed-run fast path included."""
    graph = tfteach.Graph()
    with graph.as_default():
        x = tfteach.placeholder(tfteach.float32, [None])
        y = x * 2.0
    with tfteach.Session(graph=graph) as sess:
        for value in ([1.0, 2.0], [3.0]):
            np.testing.assert_array_equal(
                sess.run(y, {x: value}, options=tfteach.RunOptions()),
                np.asarray(value, np.float32) * 2)
        assert sess._fed_runs


def _node_stats_fields(tf):
    """Per node both libraries run as built (a variable, its read, a split): the label,
    each output's dtype number and shape text; and whether every node's start time is
    wall-clock time inside the run."""
    import time
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(np.ones((2, 4), np.float32), name="w")
        _, right = tf.split(w, 2, axis=1, name="sp")
        total = tf.reduce_sum(right, name="total")
    with tf.Session(graph=graph) as sess:
        sess.run(w.initializer)
        md = tf.RunMetadata()
        before = int(time.time() * 1e6)
        sess.run(total, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
        after = int(time.time() * 1e6)
    nodes = [n for d in md.step_stats.dev_stats for n in d.node_stats]
    fields = {n.node_name: (n.timeline_label,
                            [(o.slot, o.tensor_description.dtype,
                              str(o.tensor_description.shape)) for o in n.output])
              for n in nodes if n.node_name in ("w", "w/read", "sp/split_dim", "sp")}
    # (a millisecond either side: TF's clock and Python's are read at different moments)
    in_run = all(before - 1000 <= n.all_start_micros <= after + 1000 for n in nodes)
    return fields, in_run


def test_node_stats_labels_dtypes_shapes_and_start_times_as_tensorflow():
    """tfteach labelled nodes `sp = Split()` (TF: `sp = Split(sp/split_dim, w/read)`),
    gave dtypes as NumPy names ('float32'; TF: the DataType number, a variable's value as
    its base type) and shapes as tuples (TF: a TensorShapeProto), and timed starts on
    perf_counter's clock (TF: microseconds since the epoch)."""
    fields, in_run = _node_stats_fields(tfteach)
    assert (fields, in_run) == _node_stats_fields(tensorflow_v1())
    assert in_run and fields["sp"][0] == "sp = Split(sp/split_dim, w/read)"


def test_partition_graphs_keep_their_attrs_in_tensorflows_message():
    """SerializeToString wrote a partition graph's nodes without attrs (dtype, value,
    transpose_a, ...): TF's NodeDefs carry them."""
    their_proto = tensorflow_v1().RunMetadata
    graph = tfteach.Graph()
    with graph.as_default():
        a = tfteach.constant(np.ones((2, 2), np.float32), name="a")
        product = tfteach.matmul(a, a, name="product")
    md = tfteach.RunMetadata()
    with tfteach.Session(graph=graph) as sess:
        sess.run(product, options=tfteach.RunOptions(output_partition_graphs=True),
                 run_metadata=md)
    parsed = their_proto.FromString(md.SerializeToString())
    nodes = {n.name: n for n in parsed.partition_graphs[0].node}
    assert sorted(nodes["a"].attr) == ["dtype", "value"]
    assert sorted(nodes["product"].attr) == ["T", "transpose_a", "transpose_b"]
    assert list(nodes["product"].input) == ["a", "a"]
    np.testing.assert_array_equal(
        tensorflow_v1().make_ndarray(nodes["a"].attr["value"].tensor), np.ones((2, 2)))
