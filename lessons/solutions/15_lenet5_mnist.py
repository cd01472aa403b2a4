"""Solutions of lessons/15_lenet5_mnist.ipynb (tests/test_lessons.py runs them)."""

# %% ex15_1
reshaped_tensor = tf.get_default_graph().get_tensor_by_name('layer4-pool2/Reshape:0')
answer = [reshaped_tensor.shape.as_list()[1], count_parameters()]

# %% ex15_2
with tf.Graph().as_default():
    lenet5(tf.placeholder(tf.float32, [None, 28, 28, 1]))
    answer = count_parameters()

# %% ex15_3
answer = 10 * 10 * 16 * (5 * 5 * 6 + 1)
