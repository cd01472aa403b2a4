# %% ex32_1
@tf.function
def f(x, scale):
    return x * scale

f(tf.constant([1.0]), 2.0)
f(tf.constant([5.0]), 2.0)
f(tf.constant([1.0, 2.0]), 2.0)
f(tf.constant([1.0]), 3.0)
f(tf.constant([1], tf.int32), 2)
answer = len(f.concrete_functions)


# %% ex32_2
w = tf.Variable(5.0)

@tf.function
def step():
    w.assign(w * 0.5)
    w.assign_add(1.0)
    return w.read_value()

step()
answer = float(step().numpy())
