"""One file over HTTP(S): a progress bar, a cut transfer resumed, the SHA-256 checked.

    download(url, path, sha256, timeout=60, progress=True)

- The bytes go to `path + ".part"` and become `path` only once their SHA-256 is the
  expected one; a wrong file is deleted and raises ChecksumMismatch (never used).
- A transfer that stops early (fewer bytes than the server announced, or a dropped
  connection) is resumed with an HTTP Range request from where it stopped, a few times;
  a server that ignores Range sends the whole file again. Still short after that:
  TruncatedDownload, and the part is deleted.
- No route, DNS failure, refused connection, timeout: Offline. An HTTP error status (the
  server answered) is raised as it is.
- The progress bar is tqdm's (tqdm.auto: a widget in a notebook) when tqdm is installed,
  else one line per file.
"""
import hashlib
import http.client
import os
import sys
import urllib.error
import urllib.request

__all__ = ["download", "sha256_of", "Offline", "ChecksumMismatch", "TruncatedDownload"]

_BLOCK = 1 << 16


class Offline(Exception):
    """The download could not reach the server (as opposed to a wrong file)."""


class ChecksumMismatch(Exception):
    """The downloaded bytes are not the expected file (it was deleted)."""


class TruncatedDownload(Exception):
    """The server kept sending fewer bytes than the file has (the part was deleted)."""


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class _TextProgress:
    """What shows progress without tqdm: a line when the file starts and ends."""

    def __init__(self, name, total, initial):
        self._name, self._total, self._done = name, total, initial
        print("downloading %s (%s bytes)%s" % (name, total or "?",
                                               ", resuming at %d" % initial if initial else ""),
              file=sys.stderr)

    def update(self, n):
        self._done += n

    def close(self):
        print("  %s: %d bytes" % (self._name, self._done), file=sys.stderr)


def _progress_bar(name, total, initial, enabled):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _TextProgress(name, total, initial)
    return tqdm(total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024,
                desc=name, file=sys.stderr)


def _open(url, have, timeout):
    headers = {"Range": "bytes=%d-" % have} if have else {}
    try:
        return urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                      timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416:                   # nothing left to send: the part is whole
            return None
        raise                               # the server answered: not "offline"
    except (urllib.error.URLError, OSError) as e:      # no route, DNS, refused, timeout
        raise Offline("%s: %s" % (url, getattr(e, "reason", e))) from None


def _transfer(url, part, timeout, progress, name):
    """One request: appends what the server sends to `part`. Returns (bytes now in
    part, bytes the file should have or None)."""
    have = os.path.getsize(part) if os.path.exists(part) else 0
    response = _open(url, have, timeout)
    if response is None:
        return have, have
    with response:
        resumed = have and response.status == 206
        if not resumed:
            have = 0                        # a fresh start (or Range ignored: all again)
        length = response.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        bar = _progress_bar(name, total, have, progress)
        try:
            with open(part, "ab" if resumed else "wb") as out:
                while True:
                    try:
                        block = response.read(_BLOCK)
                    except (http.client.IncompleteRead, ConnectionError, TimeoutError):
                        break               # cut: the caller resumes
                    if not block:
                        break
                    out.write(block)
                    if bar is not None:
                        bar.update(len(block))
        finally:
            if bar is not None:
                bar.close()
    return os.path.getsize(part), total


def download(url, path, sha256, timeout=60, progress=True, attempts=4):
    """Downloads `url` to `path` (see the module docstring). Returns `path`."""
    part = path + ".part"
    name = os.path.basename(path)
    try:
        for _ in range(attempts):
            got, total = _transfer(url, part, timeout, progress, name)
            if total is None or got >= total:
                break
        else:
            raise TruncatedDownload("%s: the server sent %d of %d bytes, %d times; the part "
                                    "was deleted" % (url, got, total, attempts))
    except Exception:
        _remove(part)
        raise
    digest = sha256_of(part)
    if digest != sha256:
        _remove(part)
        raise ChecksumMismatch("%s: SHA-256 %s, expected %s (file deleted)"
                               % (name, digest, sha256))
    os.replace(part, path)
    return path
