"""Solutions of lessons/34_keras.ipynb (tests/test_lessons.py runs them)."""

# %% ex34_1
cifar = Sequential()
cifar.add(Conv2D(64, (3, 3), padding='same', input_shape=(32, 32, 3)))
cifar.add(Activation('relu'))
cifar.add(Conv2D(128, (3, 3)))
cifar.add(Activation('relu'))
cifar.add(MaxPooling2D(pool_size=(2, 2)))
cifar.add(Dropout(0.25))
cifar.add(Flatten())
cifar.add(Dense(512))
cifar.add(Activation('relu'))
cifar.add(Dropout(0.5))
cifar.add(Dense(num_classes))
cifar.add(Activation('softmax'))
answer = cifar.count_params()

# %% ex34_2
answer = sorted(model_history.history)

# %% ex34_3
small = Sequential([Dense(2, input_shape=(3,)), Dense(1)])
small.set_weights([np.ones((3, 2)), np.array([0., 1.]), np.array([[1.], [-1.]]), np.array([0.5])])
answer = small.predict(np.array([[1., 2., 3.]]))
