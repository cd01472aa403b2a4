# Solutions of lessons/25_embedding_projector.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex25_1
answer = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(LOG_DIR)).get_variable_to_shape_map()

# %% ex25_2
per_side = 8192 // 28
answer = per_side * per_side

# %% ex25_3
answer = float(pca(mnist.test.images)[1].sum())

# %% ex25_4
unit = mnist.test.images / np.linalg.norm(mnist.test.images, axis=1, keepdims=True)
similarity = unit @ unit[0]
answer = [int(k) for k in np.argsort(-similarity) if k != 0][:5]
print(answer, mnist.test.labels[answer])
