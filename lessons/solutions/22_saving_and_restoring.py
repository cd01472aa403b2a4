# %% ex22_1
answer = tf.train.load_variable("./test_model", "v2")

# %% ex22_2
ckpt = tf.train.get_checkpoint_state("run")
answer = [int(path.split("/")[-1].split("-")[-1]) for path in ckpt.all_model_checkpoint_paths]

# %% ex22_3
tf.reset_default_graph()
w = tf.Variable(0.0, name="w")
with tf.Session() as sess:
    tf.train.Saver([w]).restore(sess, tf.train.latest_checkpoint("run"))
    answer = float(sess.run(w))
