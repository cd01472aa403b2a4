# Solutions of lessons/23_freezing_and_graphdefs.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex23_1
node = [n for n in graph_def.node if n.name == "v2/Assign"][0]
answer = list(node.input)

# %% ex23_2
tf.reset_default_graph()
with tf.gfile.GFile("linreg.pb", "rb") as f:
    model = tf.GraphDef()
    model.ParseFromString(f.read())
inputs = tf.placeholder(tf.float32, [None, 1])
prediction, = tf.import_graph_def(model, input_map={"x:0": inputs}, return_elements=["y_pred:0"])
with tf.Session() as sess:
    answer = sess.run(prediction, {inputs: [[10.0], [-10.0]]}).ravel().tolist()

# %% ex23_3
answer = sorted(set(node.op for node in frozen.node))
