"""Solutions of lessons/19_language_model.ipynb (tests/test_lessons.py runs them)."""

# %% ex19_1
batches = list(ptb_batches(list(range(20)), 2, 3))
answer = [len(batches), batches[1][0], batches[1][1]]

# %% ex19_2
with tf.Session() as sess:
    answer = float(sess.run(tf.contrib.seq2seq.sequence_loss(
        tf.expand_dims(A, 0), tf.expand_dims(B, 0), tf.expand_dims(w_2, 0))))

# %% ex19_3
counts = np.full((VOCAB_SIZE, VOCAB_SIZE, VOCAB_SIZE), 0.1)
np.add.at(counts, (train_ids[:-2], train_ids[1:-1], train_ids[2:]), 1)
p = counts / counts.sum(axis=2, keepdims=True)
answer = float(np.exp(-np.mean(np.log(p[valid_ids[:-2], valid_ids[1:-1], valid_ids[2:]]))))
