"""read_data_sets when MNIST is nowhere on the machine: it downloads the four files into
the user cache from a server (here a local HTTP server the test starts, serving small
synthetic IDX files whose SHA-256 the test computes), with a progress bar; a wrong file is
refused and deleted; a cut transfer is resumed with a Range request, or refused when the
server never sends it all; offline it says what to do. Never the internet."""
import hashlib
import http.server
import socket
import threading

import numpy as np
import pytest

from tfteach.datasets import download, fetch
from tfteach.examples.tutorials.mnist import input_data
from tests.test_datasets import fake_mnist


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves `files` (name -> bytes); honours Range; with `cut` (name -> count) the
    first `count` responses for that name stop halfway (the announced length unchanged)."""
    files, cut, requests, honour_range = {}, {}, [], True

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 - http.server's name
        name = self.path.lstrip("/")
        self.requests.append((name, self.headers.get("Range")))
        if name not in self.files:
            self.send_error(404)
            return
        data, start = self.files[name], 0
        wanted = self.headers.get("Range")
        if wanted and self.honour_range:
            start = int(wanted.split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1,
                                                                   len(data)))
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.cut.get(name, 0) > 0:
            self.cut[name] -= 1
            body = body[:len(body) // 2]
            self.close_connection = True
        self.wfile.write(body)


@pytest.fixture
def mirror(tmp_path, monkeypatch):
    """A local MNIST mirror of small synthetic files; the cache and TFTEACH_DATA point at
    empty folders, so read_data_sets has to download. Yields (handler class, url)."""
    served = tmp_path / "served"
    served.mkdir()
    fake_mnist(str(served), n=40, part="t10k")
    fake_mnist(str(served), n=60, part="train")
    files = {p.name: p.read_bytes() for p in served.iterdir()}
    handler = type("Handler", (_Handler,), {"files": files, "cut": {}, "requests": [],
                                            "honour_range": True})
    for name, data in files.items():
        monkeypatch.setitem(fetch.SHA256, name, hashlib.sha256(data).hexdigest())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TFTEACH_DATA", raising=False)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = "http://127.0.0.1:%d/" % httpd.server_address[1]
    monkeypatch.setenv("TFTEACH_MNIST_URL", url)
    yield handler, tmp_path / "cache" / "tfteach" / "mnist"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_downloads_into_the_cache_with_progress_and_reads_it(mirror, tmp_path, capsys):
    handler, cache = mirror
    data = input_data.read_data_sets(str(tmp_path / "MNIST_data"), validation_size=10)
    assert (data.train.num_examples, data.validation.num_examples,
            data.test.num_examples) == (50, 10, 40)
    assert sorted(p.name for p in cache.iterdir()) == sorted(handler.files)
    assert not (tmp_path / "MNIST_data").exists()           # nothing in the given folder
    err = capsys.readouterr().err
    for name in handler.files:
        assert name in err                                 # one progress bar per file
    # The next call finds the cache: no request at all.
    handler.requests.clear()
    input_data.read_data_sets(str(tmp_path / "MNIST_data"), validation_size=10)
    assert handler.requests == []


def test_a_file_with_the_wrong_digest_is_refused_and_deleted(mirror, tmp_path, monkeypatch):
    handler, cache = mirror
    monkeypatch.setitem(fetch.SHA256, "t10k-images-idx3-ubyte.gz", "0" * 64)
    with pytest.raises(download.ChecksumMismatch,
                       match="t10k-images-idx3-ubyte.gz: SHA-256 .* expected 0{64} "
                             r"\(file deleted\)"):
        input_data.read_data_sets(None)
    assert not any(p.name.startswith("t10k-images") for p in cache.iterdir())


def test_a_cut_transfer_is_resumed_with_a_range_request(mirror, tmp_path):
    handler, cache = mirror
    name = "train-images-idx3-ubyte.gz"
    handler.cut[name] = 1
    input_data.read_data_sets(None, validation_size=0)
    ranges = [r for n, r in handler.requests if n == name]
    size = len(handler.files[name])
    assert ranges == [None, "bytes=%d-" % (size // 2)]       # from where the cut left it
    assert (cache / name).read_bytes() == handler.files[name]


def test_a_server_that_never_sends_it_all_is_refused(mirror, tmp_path):
    handler, cache = mirror
    name = "t10k-labels-idx1-ubyte.gz"
    handler.cut[name] = 100
    handler.honour_range = False
    with pytest.raises(download.TruncatedDownload, match="the part was deleted"):
        input_data.read_data_sets(None)
    assert not any(p.name.startswith(name) for p in cache.iterdir())


def _closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_offline_says_exactly_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TFTEACH_DATA", raising=False)
    monkeypatch.setenv("TFTEACH_MNIST_URL", "http://127.0.0.1:%d/" % _closed_port())
    with pytest.raises(FileNotFoundError) as info:
        input_data.read_data_sets(str(tmp_path / "MNIST_data"))
    message = str(info.value)
    assert "could not be downloaded" in message and "python -m tfteach.datasets.fetch" in message
    assert "TFTEACH_DATA" in message and str(tmp_path / "cache") in message
    assert not any(p.is_file() for p in (tmp_path / "cache").rglob("*"))


def test_the_full_set_in_the_cache_wins_over_a_test_only_folder(mirror, tmp_path, capsys,
                                                                 monkeypatch):
    handler, cache = mirror
    test_only = tmp_path / "course"
    (test_only / "mnist").mkdir(parents=True)
    fake_mnist(str(test_only / "mnist"), n=30, part="t10k")
    cache.mkdir(parents=True)
    images, _ = fake_mnist(str(cache), n=25, part="train")
    fake_mnist(str(cache), n=12, part="t10k")
    monkeypatch.setenv("TFTEACH_DATA", str(test_only))
    data = input_data.read_data_sets(None, validation_size=5, dtype=np.uint8)
    assert data.train.num_examples == 20 and data.test.num_examples == 12
    assert handler.requests == [] and "only the MNIST test set" not in capsys.readouterr().out
