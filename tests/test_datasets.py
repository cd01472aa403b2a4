"""MNIST loading: the IDX format (checked against its spec), bad files, the tutorial API."""
import gzip
import os

import numpy as np
import pytest

from tfteach.datasets import idx, mnist
from tfteach.examples.tutorials.mnist import input_data


def write_idx(path, array, type_byte=0x08, compress=False):
    header = bytes([0, 0, type_byte, array.ndim]) + b"".join(
        int(d).to_bytes(4, "big") for d in array.shape)
    data = header + array.astype(">u1" if type_byte == 0x08 else array.dtype).tobytes()
    if compress:
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return path


def fake_mnist(directory, n=30, part="t10k", compress=True):
    rng = np.random.RandomState(0)
    images = rng.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)
    labels = (np.arange(n) % 10).astype(np.uint8)
    suffix = ".gz" if compress else ""
    write_idx(os.path.join(directory, mnist.FILES[part][0] + suffix), images, compress=compress)
    write_idx(os.path.join(directory, mnist.FILES[part][1] + suffix), labels, compress=compress)
    return images, labels


@pytest.mark.parametrize("compress", [False, True])
def test_idx_roundtrip(tmp_path, compress):
    array = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    path = write_idx(str(tmp_path / "a.idx"), array, compress=compress)
    np.testing.assert_array_equal(idx.read_idx(path), array)


def test_idx_bad_magic(tmp_path):
    path = tmp_path / "bad"
    path.write_bytes(b"\x12\x34\x08\x01" + (3).to_bytes(4, "big") + b"abc")
    with pytest.raises(ValueError, match="Invalid magic number"):
        idx.read_idx(str(path))


def test_idx_truncated_and_oversized(tmp_path):
    array = np.arange(10, dtype=np.uint8)
    path = write_idx(str(tmp_path / "a"), array)
    data = open(path, "rb").read()
    (tmp_path / "short").write_bytes(data[:-1])
    (tmp_path / "long").write_bytes(data + b"\0")
    for name in ("short", "long"):
        with pytest.raises(ValueError, match="holds .* bytes but its header"):
            idx.read_idx(str(tmp_path / name))
    (tmp_path / "header").write_bytes(data[:6])
    with pytest.raises(ValueError, match="truncated in its header"):
        idx.read_idx(str(tmp_path / "header"))


def test_idx_corrupted_gzip(tmp_path):
    path = write_idx(str(tmp_path / "a.gz"), np.arange(100, dtype=np.uint8), compress=True)
    data = bytearray(open(path, "rb").read())
    data = data[:len(data) // 2]
    open(path, "wb").write(bytes(data))
    with pytest.raises(ValueError, match="Corrupted gzip file"):
        idx.read_idx(path)


def test_mnist_checks_dims_and_counts(tmp_path):
    write_idx(str(tmp_path / "t10k-images-idx3-ubyte"), np.zeros((3, 28, 28), np.uint8))
    write_idx(str(tmp_path / "t10k-labels-idx1-ubyte"), np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="3 images but 4 labels"):
        mnist.load("t10k", str(tmp_path))
    write_idx(str(tmp_path / "t10k-labels-idx1-ubyte"), np.zeros((3, 1), np.uint8))
    with pytest.raises(ValueError, match="has 2 dimensions, expected 1"):
        mnist.load("t10k", str(tmp_path))
    write_idx(str(tmp_path / "t10k-labels-idx1-ubyte"), np.array([1, 2, 12], np.uint8))
    with pytest.raises(ValueError, match="label 12 is not a digit"):
        mnist.load("t10k", str(tmp_path))


def test_missing_data_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("TFTEACH_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="TFTEACH_DATA"):
        mnist.load()
    with pytest.raises(FileNotFoundError, match="not found"):
        mnist.load("t10k", str(tmp_path))


def test_read_data_sets_splits_a_test_only_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(input_data, "TEST_SET_SPLIT", 20)
    images, labels = fake_mnist(str(tmp_path), n=30)
    data = input_data.read_data_sets(str(tmp_path), one_hot=True, validation_size=5)
    assert "only the MNIST test set" in capsys.readouterr().out
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (15, 5, 10)
    np.testing.assert_allclose(data.validation.images, images[:5].reshape(5, 784) / 255.0)
    np.testing.assert_array_equal(data.test.labels.argmax(1), labels[20:])
    assert data.train.images.dtype == np.float32 and data.train.labels.shape == (15, 10)
    with pytest.raises(ValueError, match="Validation size should be between 0 and 20"):
        input_data.read_data_sets(str(tmp_path), validation_size=21)


def test_next_batch_covers_each_epoch_once(tmp_path):
    fake_mnist(str(tmp_path), n=30, part="train", compress=False)
    fake_mnist(str(tmp_path), n=10, part="t10k", compress=False)
    data = input_data.read_data_sets(str(tmp_path), validation_size=0, seed=1)
    seen = np.concatenate([data.train.next_batch(10)[1] for _ in range(3)])
    assert sorted(seen.tolist()) == sorted((np.arange(30) % 10).tolist())
    assert data.train.epochs_completed == 0
    x, y = data.train.next_batch(7)       # crosses into the second epoch
    assert x.shape == (7, 784) and data.train.epochs_completed == 1


def test_dataset_checks_are_tensorflows_asserts():
    # TF 1.15's DataSet asserts (note 001 quotes them): AssertionError, same text.
    with pytest.raises(AssertionError, match=r"^images.shape: \(5, 28, 28, 1\) labels.shape: \(4,\)$"):
        input_data.DataSet(np.zeros((5, 28, 28, 1), np.uint8), np.zeros(4, np.uint8))
    with pytest.raises(AssertionError):
        input_data.DataSet(np.zeros((5, 28, 28, 3), np.uint8), np.zeros(5, np.uint8))
    data = input_data.DataSet(np.zeros((5, 28, 28, 1), np.uint8), np.zeros(5, np.uint8))
    assert data.images.shape == (5, 784)


def test_the_real_mnist_test_set():
    if "t10k" not in mnist.available():
        pytest.skip("MNIST not found: set TFTEACH_DATA to the folder holding mnist/")
    images, labels = mnist.load("t10k")
    assert images.shape == (10000, 28, 28) and labels.shape == (10000,)
    assert images.dtype == np.uint8 and images.max() == 255
    # Every digit is present in roughly equal numbers (the test set has 892..1135 each).
    counts = np.bincount(labels, minlength=10)
    assert counts.min() > 850 and counts.max() < 1200


def test_a_gzip_bomb_is_rejected_without_decompressing_it(tmp_path):
    """A small gzip file that decompresses to far more than its header declares stops
    after the declared bytes; one whose header declares more than the file could hold
    stops before reading the body at all (tracemalloc: a few MiB, not hundreds)."""
    import tracemalloc
    header = bytes([0, 0, 8, 1]) + (10).to_bytes(4, "big")
    bomb = tmp_path / "bomb.gz"
    with gzip.open(str(bomb), "wb", compresslevel=9) as f:
        f.write(header)
        zeros = bytes(1 << 20)
        for _ in range(400):                 # 400 MiB of zeros: ~400 KiB compressed
            f.write(zeros)
    liar = tmp_path / "liar.gz"
    with gzip.open(str(liar), "wb") as f:
        f.write(bytes([0, 0, 8, 3]) + b"".join((60000).to_bytes(4, "big") for _ in range(3)))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"holds more than 18 bytes but its header \[10\]"):
            idx.read_idx(str(bomb))
        with pytest.raises(ValueError, match="declares 216000000000016 bytes, more than the "
                                             "file can hold"):
            idx.read_idx(str(liar))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20


def test_declared_dimensions_must_match_the_data(tmp_path):
    array = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    for compress in (False, True):
        path = write_idx(str(tmp_path / ("a%d" % compress)), array, compress=compress)
        raw = open(path, "rb").read()
        data = gzip.decompress(raw) if compress else raw
        lying = data[:4] + (3).to_bytes(4, "big") + data[8:]      # says 3 x 3 x 4
        open(path, "wb").write(gzip.compress(lying) if compress else lying)
        with pytest.raises(ValueError, match=r"holds 40 bytes but its header \[3, 3, 4\] "
                                             r"needs 52"):
            idx.read_idx(path)


def test_read_data_sets_dtype_is_tensorflows(tmp_path):
    import tfteach as tf
    images, _ = fake_mnist(str(tmp_path), n=30, part="train")
    fake_mnist(str(tmp_path), n=10, part="t10k")
    for dtype in (tf.uint8, np.uint8, "uint8"):
        data = input_data.read_data_sets(str(tmp_path), dtype=dtype, validation_size=0)
        assert data.train.images.dtype == np.uint8
        np.testing.assert_array_equal(data.train.images, images.reshape(30, 784))
    data = input_data.read_data_sets(str(tmp_path), dtype=tf.float32, validation_size=0)
    np.testing.assert_allclose(data.train.images, images.reshape(30, 784) / 255.0,
                               rtol=1e-6, atol=1e-7)
    with pytest.raises(TypeError, match="Invalid image dtype tf.int32, expected uint8 or "
                                        "float32"):
        input_data.read_data_sets(str(tmp_path), dtype=tf.int32, validation_size=0)


def test_the_split_message_says_what_is_returned(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(input_data, "TEST_SET_SPLIT", 20)
    fake_mnist(str(tmp_path), n=30)
    data = input_data.read_data_sets(str(tmp_path), validation_size=5)
    out = capsys.readouterr().out
    sizes = (data.train.num_examples, data.validation.num_examples, data.test.num_examples)
    assert sizes == (15, 5, 10)
    assert ("its first 20 images are the training images, 5 of them kept for validation "
            "(validation_size=5), leaving 15 in mnist.train; its last 10 are mnist.test"
            in out)
