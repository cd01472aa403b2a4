# %% ex27_1
tf.reset_default_graph()
q = tf.FIFOQueue(3, tf.int32)
init = q.enqueue_many(([0, 10, 20], ))
x = q.dequeue()
q_inc = q.enqueue([x + 1])
with tf.Session() as sess:
    init.run()
    answer = [int(sess.run([x, q_inc])[0]) for _ in range(6)]

# %% ex27_2
tf.reset_default_graph()
example = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
batch = tf.train.batch([example], batch_size=4, allow_smaller_final_batch=True)
answer = []
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while True:
            answer.append(len(sess.run(batch)))
    except tf.errors.OutOfRangeError:
        pass
    coord.request_stop()
    coord.join(threads)

# %% ex27_3
tf.reset_default_graph()
names = [os.path.join(workdir, "a.csv"), os.path.join(workdir, "b.csv")]
filename_queue = tf.train.string_input_producer(names, num_epochs=1, shuffle=False)
reader = tf.TextLineReader(skip_header_lines=1)
_, line = reader.read(filename_queue)
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while True:
            sess.run(line)
    except tf.errors.OutOfRangeError:
        pass
    answer = int(sess.run(reader.num_records_produced()))
    coord.request_stop()
    coord.join(threads)
