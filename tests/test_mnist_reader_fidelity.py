"""TF 1.15's MNIST reader, as `input_data.read_data_sets` and note 002's
`tf.contrib.learn.datasets.load_dataset("mnist")` give it: the bits of the images, the
labels' dtypes, the "Extracting" lines, NumPy's global generator seeded and shuffled
with, fake data. The expected values are TF 1.15's formulas
(contrib/learn/python/learn/datasets/mnist.py), computed here with NumPy."""
import os

import numpy as np
import pytest

from test_datasets import fake_mnist
from tfteach.examples.tutorials.mnist import input_data


@pytest.fixture
def full_folder(tmp_path):
    train = fake_mnist(str(tmp_path), n=40, part="train")
    test = fake_mnist(str(tmp_path), n=20, part="t10k")
    return str(tmp_path), train, test


def test_float_images_are_tensorflows_bits(full_folder):
    folder, (train_images, _), (test_images, _) = full_folder
    data = input_data.read_data_sets(folder, validation_size=10)
    # TF 1.15: images.astype(float32), then numpy.multiply(images, 1.0 / 255.0).
    expected = train_images.reshape(40, 784).astype(np.float32) * np.float32(1.0 / 255.0)
    assert data.validation.images.dtype == np.float32
    np.testing.assert_array_equal(data.validation.images, expected[:10])
    np.testing.assert_array_equal(data.test.images,
                                  test_images.reshape(20, 784).astype(np.float32) *
                                  np.float32(1.0 / 255.0))
    # The division rounds differently: a test of the multiplication can tell them apart.
    pixels = np.arange(256, dtype=np.float32)
    assert (pixels / np.float32(255) != pixels * np.float32(1.0 / 255.0)).sum() > 100


def test_labels_are_the_files_bytes_or_float64_one_hot_rows(full_folder):
    folder, (_, train_labels), (_, test_labels) = full_folder
    data = input_data.read_data_sets(folder, validation_size=10)
    assert data.train.labels.dtype == np.uint8
    np.testing.assert_array_equal(data.validation.labels, train_labels[:10])
    hot = input_data.read_data_sets(folder, one_hot=True, validation_size=10)
    assert hot.test.labels.dtype == np.float64 and hot.test.labels.shape == (20, 10)
    np.testing.assert_array_equal(hot.test.labels, np.eye(10)[test_labels])
    # A DataSet keeps real labels as given; its one_hot only shapes fake data's.
    kept = input_data.DataSet(np.zeros((3, 28, 28, 1), np.uint8),
                              np.array([4, 5, 6], np.uint8), one_hot=True)
    np.testing.assert_array_equal(kept.labels, [4, 5, 6])


def test_each_file_read_is_announced_as_tensorflow_does(full_folder, capsys):
    folder = full_folder[0]
    input_data.read_data_sets(folder, validation_size=0)
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["Extracting " + os.path.join(folder, name + ".gz") for name in (
        "train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte")]


def test_a_seeded_reader_seeds_numpys_generator_and_shuffles_with_it(full_folder):
    folder, (_, train_labels), _ = full_folder
    np.random.seed(123)                       # overridden by the reader, as in TF
    data = input_data.read_data_sets(folder, validation_size=0, seed=7)
    after_reading = np.random.rand(3)
    np.testing.assert_array_equal(after_reading, np.random.RandomState(7).rand(3))

    data = input_data.read_data_sets(folder, validation_size=0, seed=7)
    _, labels = data.train.next_batch(40)     # one epoch, in the first shuffle's order
    order = np.arange(40)
    np.random.RandomState(7).shuffle(order)
    np.testing.assert_array_equal(labels, train_labels[order])


def test_the_graph_seed_seeds_an_unseeded_reader(full_folder):
    import tfteach as tf
    with tf.Graph().as_default():
        tf.set_random_seed(11)
        input_data.read_data_sets(full_folder[0], validation_size=0)
        np.testing.assert_array_equal(np.random.rand(2), np.random.RandomState(11).rand(2))


def test_fake_data_is_tensorflows():
    data = input_data.read_data_sets(None, fake_data=True, one_hot=True)
    assert data.train.num_examples == data.test.num_examples == 10000
    images, labels = data.train.next_batch(2, fake_data=True)
    assert images == [[1] * 784] * 2 and labels == [[1] + [0] * 9] * 2
    plain = input_data.read_data_sets(None, fake_data=True)
    assert plain.validation.next_batch(3, fake_data=True)[1] == [0, 0, 0]


def test_load_dataset_mnist_is_read_data_sets_of_mnist_data(tmp_path, monkeypatch, capsys):
    # Note 002's MLP: tf.contrib.learn.datasets.load_dataset("mnist"). TF 1.15's is
    # read_data_sets("MNIST-data") with its defaults; here the course's copy is found
    # through TFTEACH_DATA (no MNIST-data folder in the working directory).
    import tfteach as tf
    from tfteach.datasets import mnist
    if "t10k" not in mnist.available():
        pytest.skip("needs TFTEACH_DATA with MNIST's test set")
    monkeypatch.chdir(tmp_path)
    data = tf.contrib.learn.datasets.load_dataset("mnist")
    out = capsys.readouterr().out
    assert "Extracting " + os.path.join(mnist.data_dir(), "t10k-images-idx3-ubyte.gz") in out
    images, labels = mnist.load("t10k")
    split = input_data.TEST_SET_SPLIT
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (split - 5000, 5000, len(labels) - split)
    np.testing.assert_array_equal(data.validation.labels, labels[:5000])
    assert data.test.labels.dtype == np.uint8
    np.testing.assert_array_equal(
        data.test.images, images[split:].reshape(-1, 784).astype(np.float32) *
        np.float32(1.0 / 255.0))
    assert not os.path.exists(tmp_path / "MNIST-data")     # nothing copied there


def test_load_dataset_names(monkeypatch):
    import tfteach as tf
    with pytest.raises(ValueError, match="^Name of dataset is not found: cifar10$"):
        tf.contrib.learn.datasets.load_dataset("cifar10")
    for name in ("iris", "boston", "dbpedia"):
        with pytest.raises(NotImplementedError, match="tfteach has 'mnist'"):
            tf.contrib.learn.datasets.load_dataset(name)
    assert sorted(tf.contrib.learn.datasets.DATASETS) == ["boston", "dbpedia", "iris",
                                                          "mnist"]
