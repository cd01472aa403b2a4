# %% ex29_1
with tf.python_io.TFRecordWriter("Records/three.tfrecords") as w:
    for _ in range(3):
        w.write(data)
answer = os.path.getsize("Records/three.tfrecords")

# %% ex29_2
for number, record in enumerate(tf.python_io.tf_record_iterator("Records/output.tfrecords")):
    if number == 100:
        answer = tf.train.Example.FromString(record).features.feature['label'].int64_list.value[0]
        break

# %% ex29_3
every_record = list(tf.python_io.tf_record_iterator("Records/output.tfrecords"))
all_labels = tf.parse_example(every_record, {'label': tf.FixedLenFeature([], tf.int64)})
answer = int(sess.run(tf.reduce_sum(tf.cast(tf.equal(all_labels['label'], 7), tf.int32))))

# %% ex29_4
tf.reset_default_graph()
files = tf.train.match_filenames_once("Records/data.tfrecords-*")
queue = tf.train.string_input_producer(files, shuffle=False)
_, record = tf.TFRecordReader().read(queue)
pair = tf.parse_single_example(record, {'i': tf.FixedLenFeature([], tf.int64),
                                        'j': tf.FixedLenFeature([], tf.int64)})
with tf.Session() as sess:
    tf.local_variables_initializer().run()
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    answer = [[int(v) for v in sess.run([pair['i'], pair['j']])] for _ in range(5)]
    coord.request_stop()
    coord.join(threads)
