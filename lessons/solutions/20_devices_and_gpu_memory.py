"""Solutions to the exercises of lessons/20_devices_and_gpu_memory.ipynb (one section per grade_id)."""

# %% ex20_1
options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
metadata = tf.RunMetadata()
sess.run(total, options=options, run_metadata=metadata)
answer = {node.node_name: node.device.split('device:')[-1] for node in metadata.step_stats.all_nodes()}

# %% ex20_2
config = tf.ConfigProto()
config.gpu_options.per_process_gpu_memory_fraction = 0.25
config.gpu_options.allow_growth = True
with tf.Session(config=config) as s:
    s.run(big.initializer)
    stats = tf.config.memory_stats('/gpu:0')
answer = [stats['bytes_limit'] / MiB, stats['bytes_reserved'] / MiB]

# %% ex20_3
answer = None
for n in range(100, 4001, 100):
    try:
        sess.run(h, {x: batch[:n]})
        answer = n
    except tf.errors.ResourceExhaustedError:
        break

# %% ex20_4
tf.config.set_virtual_gpus(1, memory_limit=4096)
tf.reset_default_graph()
with tf.device('/gpu:0'):
    z = tf.constant(1.0) + 1.0
with tf.Session() as s:
    s.run(z)
    answer = tf.config.memory_stats('/gpu:0')['bytes_limit'] / MiB
