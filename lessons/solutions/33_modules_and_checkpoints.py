# %% ex33_1
net = MLP([784, 300, 100, 10])
answer = int(np.sum([tf.size(v).numpy() for v in net.trainable_variables]))


# %% ex33_2
ckpt = tf.train.Checkpoint(net=SampleLayer(name="my_layer"))
p = ckpt.save(os.path.join(workdir, 'ex2', 'layer'))
answer = sorted(name for name, _ in tf.train.list_variables(p) if name != "_CHECKPOINTABLE_OBJECT_GRAPH")


# %% ex33_3
v = tf.Variable(0.0)
m = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), os.path.join(workdir, 'ex3'), max_to_keep=3)
for i in range(5):
    v.assign(float(i * i))
    m.save()
tf.train.Checkpoint(v=v).restore(m.checkpoints[0])
answer = float(v.numpy())
