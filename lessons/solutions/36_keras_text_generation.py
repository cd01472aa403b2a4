# %% ex36_1
answer = sum(1 for line in data_loader.raw_text.splitlines() if line and "better" in line)


# %% ex36_2
answer = int(np.prod(model.variables[0].shape.as_list()))


# %% ex36_3
answer = float(tf.nn.softmax(np.array([2.0, 1.0, 0.0]) / 0.5).numpy()[0])
