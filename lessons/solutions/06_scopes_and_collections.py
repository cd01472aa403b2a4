"""Solutions of lessons/06_scopes_and_collections.ipynb (one section per exercise; tests/test_lessons.py runs them)."""

# %% ex06_1
with tf.Graph().as_default():
    with tf.variable_scope("net"):
        with tf.name_scope("block"):
            v1 = tf.Variable(1.0, name="v")
            v2 = tf.get_variable("w", [1])
            x = v1 + v2
    answer = [v1.name, v2.name, x.op.name]

# %% ex06_2
def layer(x):
    w = tf.get_variable("w", [2, 2], initializer=tf.constant_initializer(0.5))
    return tf.matmul(x, w)

with tf.Graph().as_default():
    x1 = tf.constant([[1.0, 2.0]])
    x2 = tf.constant([[3.0, 4.0]])
    with tf.variable_scope("shared"):
        y1 = layer(x1)
    with tf.variable_scope("shared", reuse=True):
        y2 = layer(x2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        answer = {"n_vars": len(tf.trainable_variables()), "out": sess.run(y1 + y2)}

# %% ex06_3
with tf.Graph().as_default():
    w1 = tf.Variable([1.0, 2.0])
    w2 = tf.Variable([3.0])
    tf.add_to_collection('losses', tf.constant(1.0))
    tf.add_to_collection('losses', 0.1 * tf.nn.l2_loss(w1))
    tf.add_to_collection('losses', 0.1 * tf.nn.l2_loss(w2))
    total = tf.add_n(tf.get_collection('losses'))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        answer = sess.run(total)

# %% ex06_4
with tf.Graph().as_default():
    with tf.variable_scope("encoder"):
        tf.get_variable("w", [4, 2])
        tf.get_variable("b", [2])
    with tf.variable_scope("decoder"):
        tf.get_variable("w", [2, 4])
        tf.get_variable("b", [4])
        tf.get_variable("scale", [1], trainable=False)
    answer = [v.name for v in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="decoder")]
