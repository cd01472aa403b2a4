# %% ex28_1
odd_squares = (tf.data.Dataset.range(20).filter(lambda n: tf.equal(n % 2, 1))
               .map(lambda n: n * n).batch(3, drop_remainder=True))
answer = [b.tolist() for b in elements(odd_squares)]

# %% ex28_2
tf.reset_default_graph()
limit = tf.placeholder(tf.int64, [])
iterator = tf.data.Dataset.range(limit).batch(4).make_initializable_iterator()
next_batch = iterator.get_next()
with tf.Session() as sess:
    sess.run(iterator.initializer, {limit: 10})
    count = 0
    while True:
        try:
            sess.run(next_batch)
            count += 1
        except tf.errors.OutOfRangeError:
            break
answer = count

# %% ex28_3
tf.reset_default_graph()
ds = tf.data.Dataset.from_generator(
    batch_generator, (tf.float32, tf.uint8),
    (tf.TensorShape([None, 28, 28, 1]), tf.TensorShape([None, 10]))).repeat(3)
answer = sum(batch.shape[0] for batch, _ in elements(ds))
