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
