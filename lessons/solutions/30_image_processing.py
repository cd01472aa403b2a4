# Solutions of lessons/30_image_processing.ipynb (tests/test_lessons.py runs them in place of
# the exercise cells; a teacher can paste a section into the student's cell).

# %% ex30_1
tf.reset_default_graph()
image = tf.image.convert_image_dtype(tf.image.decode_jpeg(image_raw_data), tf.float32)
with tf.Session() as s:
    answer = tuple(s.run(tf.image.central_crop(image, 0.4)).shape)

# %% ex30_2
tf.reset_default_graph()
with tf.Session() as s:
    answer = s.run(tf.image.convert_image_dtype(tf.constant([0.5, 1.0]), tf.uint8)).tolist()

# %% ex30_3
tf.reset_default_graph()
square = tf.constant([[[0.0], [1.0]], [[2.0], [3.0]]])
with tf.Session() as s:
    answer = s.run(tf.image.resize_images(square, [4, 4]))[:, :, 0]
