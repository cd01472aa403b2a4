"""tfteach.datasets.fetch: MNIST fetched once at set-up (Binder's postBuild), checked by
SHA-256; offline it skips cleanly. Served here by a local HTTP server, never the internet."""
import functools
import hashlib
import http.server
import os
import shutil
import socket
import threading

import pytest

from tfteach.datasets import fetch, mnist

SHARED = os.path.join(os.environ.get("TFTEACH_DATA", ""), "mnist")
needs_shared = pytest.mark.skipif(
    not all(os.path.exists(os.path.join(SHARED, n)) for n in fetch.TEST_FILES),
    reason="the shared MNIST test set (TFTEACH_DATA/mnist) is not here")


@pytest.fixture
def server(tmp_path):
    """(base URL, folder it serves)."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % httpd.server_address[1], root
    httpd.shutdown()
    httpd.server_close()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                       # nothing listens there now: connection refused
    return port


def test_digests_are_the_known_sizes_and_hex():
    assert set(fetch.SHA256) == set(fetch.SIZES) == set(fetch.TEST_FILES + fetch.TRAIN_FILES)
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in fetch.SHA256.values())


@needs_shared
def test_the_shared_copy_matches_the_digests():
    for name in fetch.TEST_FILES:
        path = os.path.join(SHARED, name)
        assert os.path.getsize(path) == fetch.SIZES[name]
        assert hashlib.sha256(open(path, "rb").read()).hexdigest() == fetch.SHA256[name]


@needs_shared
def test_fetch_writes_checked_files_that_mnist_loads(server, tmp_path, monkeypatch):
    url, root = server
    for name in fetch.TEST_FILES:
        shutil.copy(os.path.join(SHARED, name), root / name)
    dest = tmp_path / "data"
    said = []
    files = fetch.fetch_mnist(str(dest), base_url=url, timeout=10, say=said.append)
    assert [os.path.basename(f) for f in files] == list(fetch.TEST_FILES)
    assert len(said) == 2 and not any(p.name.endswith(".part")
                                       for p in (dest / "mnist").iterdir())
    monkeypatch.setenv("TFTEACH_DATA", str(dest))
    images, labels = mnist.load("t10k")
    assert images.shape == (10000, 28, 28) and labels.shape == (10000,)
    # a second run finds them correct and downloads nothing
    (root / fetch.TEST_FILES[0]).unlink()
    said.clear()
    fetch.fetch_mnist(str(dest), base_url=url, timeout=10, say=said.append)
    assert said == []


def test_a_wrong_file_is_refused_and_deleted(server, tmp_path, capsys):
    url, root = server
    for name in fetch.TEST_FILES:
        (root / name).write_bytes(b"not mnist")
    dest = tmp_path / "data"
    with pytest.raises(fetch.ChecksumMismatch, match="t10k-images-idx3-ubyte.gz: SHA-256"):
        fetch.fetch_mnist(str(dest), base_url=url, timeout=10)
    assert list((dest / "mnist").iterdir()) == []
    assert fetch.main([str(dest), "--base-url", url, "--timeout", "10"]) == 1
    assert "MNIST fetch failed" in capsys.readouterr().err


def test_a_missing_file_on_the_server_is_an_error_not_offline(server, tmp_path):
    url, _ = server                        # serves nothing: 404
    assert fetch.main([str(tmp_path), "--base-url", url, "--timeout", "10"]) == 1


def test_offline_skips_cleanly(tmp_path, capsys):
    url = "http://127.0.0.1:%d/" % closed_port()
    with pytest.raises(fetch.Offline):
        fetch.fetch_mnist(str(tmp_path), base_url=url, timeout=5)
    assert fetch.main([str(tmp_path), "--base-url", url, "--timeout", "5"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("MNIST not fetched (no network?)") and err.count("\n") == 1
    assert list((tmp_path / "mnist").iterdir()) == []
