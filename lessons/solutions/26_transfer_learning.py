# Solutions of lessons/26_transfer_learning.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex26_1
answer = 0
for node in frozen_graph_def.node:
    tensor = node.attr['value'].tensor
    if node.op == 'Const' and tensor.dtype == tf.float32.as_datatype_enum:
        answer += int(np.prod([d.size for d in tensor.tensor_shape.dim]))

# %% ex26_2
answer = sorted(v.name for v in tf.trainable_variables())

# %% ex26_3
tf.reset_default_graph()
bottleneck_tensor, image_data_tensor = tf.import_graph_def(
    graph_def, return_elements=[BOTTLENECK_TENSOR_NAME, IMAGE_DATA_TENSOR_NAME])
final_tensor, = tf.import_graph_def(
    final_layer_graph_def, input_map={'BottleneckInputPlaceholder:0': bottleneck_tensor},
    return_elements=['final_training_ops/final_result:0'])
answer = sorted(set(op.type for op in tf.get_default_graph().get_operations()))
with tf.Session() as sess:
    classes = sess.run(final_tensor, {image_data_tensor: test_x[:10]}).argmax(axis=1)
print([class_order[k] for k in classes])
print([CLASS_NAMES[k] for k in test_y[:10]])
