"""`tf.keras.utils.get_file`: a file from the Keras cache, downloaded on first use.

The file is kept as `<cache_dir>/<cache_subdir>/<fname>` (default `~/.keras/datasets`,
as Keras). A file already there is used as it is; otherwise it is downloaded from
`origin` (and unpacked with `extract=True` / `untar=True`). Without a network the
download fails with a clear error naming the URL and where to put the file by hand —
the course machines are offline, so lessons use local data instead.
"""
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile

__all__ = ["get_file"]


def get_file(fname, origin, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    cache_dir = cache_dir or os.path.join(os.path.expanduser("~"), ".keras")
    directory = os.path.join(cache_dir, cache_subdir)
    os.makedirs(directory, exist_ok=True)
    target = os.path.join(directory, fname)
    archive = target + ".tar.gz" if untar else target
    if not os.path.exists(archive):
        partial = archive + ".part"
        try:
            with urllib.request.urlopen(origin) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
        except (urllib.error.URLError, OSError) as error:
            if os.path.exists(partial):
                os.remove(partial)
            raise Exception("URL fetch failure on %s: %s -- this machine cannot download "
                            "it (offline?). Put the file at %s by hand, or use local data "
                            "(tf.keras.datasets.mnist reads $TFTEACH_DATA)."
                            % (origin, getattr(error, "reason", error), archive)) from None
        os.replace(partial, archive)
    if untar:
        if not os.path.exists(target):
            with tarfile.open(archive) as tar:
                tar.extractall(directory, filter="data")
        return target
    if extract:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(directory)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tar:
                tar.extractall(directory, filter="data")
    return archive
