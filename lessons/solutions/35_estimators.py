# %% ex35_1
exercise_dir = os.path.join(work, "exercise_1")
exercise_est = tf.estimator.Estimator(
    model_fn, model_dir=exercise_dir,
    config=tf.estimator.RunConfig(save_checkpoints_steps=40, keep_checkpoint_max=3),
    params={"hidden": 16, "learning_rate": 1e-3})
exercise_est.train(train_input, steps=130)
answer = sorted(int(f[len("model.ckpt-"):-len(".index")])
                for f in os.listdir(exercise_dir) if f.endswith(".index"))

# %% ex35_2
tf.reset_default_graph()
features = {"age": tf.constant([[23.0], [47.0], [65.0]]),
            "colour": tf.constant([["red"], ["blue"], ["green"]])}
age = tf.feature_column.numeric_column("age")
colour = tf.feature_column.categorical_column_with_vocabulary_list(
    "colour", ["red", "green", "blue"])
layer = tf.feature_column.input_layer(
    features, [tf.feature_column.bucketized_column(age, boundaries=[40.0]),
               tf.feature_column.indicator_column(colour)])
with tf.Session() as sess:
    answer = sess.run(layer)

# %% ex35_3
tf.reset_default_graph()
batch = tf.estimator.inputs.numpy_input_fn({"x": np.arange(10.0)}, batch_size=4,
                                           num_epochs=3, shuffle=False)()
count = 0
with tf.Session() as sess:
    while True:
        try:
            sess.run(batch)
            count += 1
        except tf.errors.OutOfRangeError:
            break
answer = count
