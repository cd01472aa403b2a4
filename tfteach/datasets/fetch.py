"""Fetches MNIST's IDX files once, at set-up time, checked against known SHA-256 digests.

    python -m tfteach.datasets.fetch DEST [--train] [--base-url URL] [--timeout S]

writes DEST/mnist/t10k-{images-idx3,labels-idx1}-ubyte.gz (the 10,000-image test set the
lessons use; `--train` adds the 60,000-image training set), so `TFTEACH_DATA=DEST` reads
them. Binder's postBuild runs it (binder/, docs/classroom.md). A lesson's
`read_data_sets` downloads only when MNIST is nowhere on the machine (input_data.py).

- Digests: TensorFlow Datasets' url_checksums/mnist.txt (tensorflow/datasets), for the
  files at storage.googleapis.com/cvdf-datasets/mnist/ — the mirror TF 1.x's
  `input_data.read_data_sets` downloads from.
- Offline (no route, DNS failure, timeout): says so in one line and exits 0, so a build
  without network still succeeds; the lessons that need MNIST then say it is missing.
- A file whose digest differs is deleted and the exit status is 1: a corrupt or changed
  download is an error, never silently used. Files already present and correct are kept.
- The transfer itself (resume of a cut download, progress bar) is datasets/download.py;
  `input_data.read_data_sets` uses the same code when MNIST is nowhere on the machine.
"""
import argparse
import os
import sys
import urllib.error

from tfteach.datasets.download import (ChecksumMismatch, Offline, TruncatedDownload,  # noqa: F401
                                       download, sha256_of)

__all__ = ["BASE_URL", "SHA256", "SIZES", "TEST_FILES", "TRAIN_FILES", "fetch_mnist", "main"]

BASE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"

SHA256 = {
    "t10k-images-idx3-ubyte.gz": "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
    "t10k-labels-idx1-ubyte.gz": "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    "train-images-idx3-ubyte.gz": "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
    "train-labels-idx1-ubyte.gz": "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
}
SIZES = {"t10k-images-idx3-ubyte.gz": 1648877, "t10k-labels-idx1-ubyte.gz": 4542,
         "train-images-idx3-ubyte.gz": 9912422, "train-labels-idx1-ubyte.gz": 28881}
TEST_FILES = ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
TRAIN_FILES = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")


def fetch_mnist(dest, train=False, base_url=BASE_URL, timeout=60, say=print, progress=False,
                folder=None):
    """Downloads the missing files into dest/mnist (or `folder`) and checks every digest.
    Returns the list of files now present and verified. Raises Offline, ChecksumMismatch
    or TruncatedDownload (datasets/download.py)."""
    folder = folder or os.path.join(dest, "mnist")
    os.makedirs(folder, exist_ok=True)
    names = TEST_FILES + (TRAIN_FILES if train else ())
    done = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.exists(path) and sha256_of(path) == SHA256[name]:
            done.append(path)
            continue
        download(base_url.rstrip("/") + "/" + name, path, SHA256[name], timeout,
                 progress=progress)
        say("fetched %s (%d bytes, SHA-256 checked)" % (path, os.path.getsize(path)))
        done.append(path)
    return done


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tfteach.datasets.fetch",
                                     description="Fetch MNIST into DEST/mnist, checked.")
    parser.add_argument("dest", help="the folder TFTEACH_DATA will name")
    parser.add_argument("--train", action="store_true",
                        help="also the 60,000-image training set (9.9 MB)")
    parser.add_argument("--base-url", default=os.environ.get("TFTEACH_MNIST_URL", BASE_URL),
                        help="where the .gz files are (default %s; or TFTEACH_MNIST_URL)"
                        % BASE_URL)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    try:
        files = fetch_mnist(args.dest, args.train, args.base_url, args.timeout)
    except Offline as e:
        print("MNIST not fetched (no network?): %s; the lessons that need it will say so"
              % e, file=sys.stderr)
        return 0
    except (ChecksumMismatch, TruncatedDownload, urllib.error.HTTPError) as e:
        print("MNIST fetch failed: %s" % e, file=sys.stderr)
        return 1
    print("MNIST ready in %s (%d files)" % (os.path.join(args.dest, "mnist"), len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
