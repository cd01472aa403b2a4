"""`tf.gfile`: TF 1.15's file API on the local file system.

TensorFlow's GFile also speaks gs:// and hdfs://; tfteach knows local paths only (a
URL scheme is refused with UnimplementedError). The errors are TensorFlow's: a missing
file is NotFoundError, an existing target AlreadyExistsError. As in TensorFlow a
GFile opens its file lazily: `GFile("missing").read()` fails at the read.
"""
import collections
import glob as _glob
import os
import shutil

from tfteach.framework.errors import (AlreadyExistsError, FailedPreconditionError,
                                      NotFoundError, UnimplementedError)

__all__ = ["GFile", "FastGFile", "Open", "Exists", "Glob", "IsDirectory", "ListDirectory",
           "MakeDirs", "MkDir", "Remove", "DeleteRecursively", "Rename", "Copy", "Stat",
           "Walk"]

FileStatistics = collections.namedtuple("FileStatistics", "length mtime_nsec is_directory")


def _path(name):
    name = os.fspath(name)
    if isinstance(name, bytes):
        name = name.decode("utf-8")
    if "://" in name and not name.startswith("file://"):
        raise UnimplementedError(None, None, "File system scheme '%s' not implemented (file: "
                                 "'%s'); tfteach reads local files only"
                                 % (name.split("://")[0], name))
    return name[len("file://"):] if name.startswith("file://") else name


def _not_found(path):
    return NotFoundError(None, None, "%s; No such file or directory" % path)


class GFile:
    """A file (TF's `tf.gfile.GFile`): `read`, `readline`, `write`, `seek`, iteration."""

    def __init__(self, name, mode="r"):
        self.__name = _path(name)
        self.__mode = mode
        self._f = None

    @property
    def name(self):
        return self.__name

    @property
    def mode(self):
        return self.__mode

    def _file(self):
        if self._f is None:
            mode = self.__mode if "b" in self.__mode else self.__mode + "b"
            try:
                self._f = open(self.__name, mode)
            except FileNotFoundError:
                raise _not_found(self.__name) from None
            except IsADirectoryError:
                raise FailedPreconditionError(None, None, "%s; Is a directory"
                                              % self.__name) from None
        return self._f

    def _out(self, data):
        return data if "b" in self.__mode else data.decode("utf-8")

    def size(self):
        return Stat(self.__name).length

    def read(self, n=-1):
        return self._out(self._file().read(n))

    def readline(self):
        return self._out(self._file().readline())

    def readlines(self):
        return [self._out(line) for line in self._file().readlines()]

    def write(self, file_content):
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        self._file().write(file_content)

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._file().seek(offset, whence)

    def tell(self):
        return self._file().tell()

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


FastGFile = Open = GFile


def Exists(filename):  # noqa: N802 - TensorFlow's names
    return os.path.exists(_path(filename))


def IsDirectory(dirname):  # noqa: N802
    return os.path.isdir(_path(dirname))


def Glob(filename):  # noqa: N802
    return sorted(_glob.glob(_path(filename)))


def ListDirectory(dirname):  # noqa: N802
    """The names in a directory (not their paths), without "." and ".."."""
    path = _path(dirname)
    if not os.path.isdir(path):
        raise NotFoundError(None, None, "Could not find directory %s" % path)
    return os.listdir(path)


def MakeDirs(dirname):  # noqa: N802
    os.makedirs(_path(dirname), exist_ok=True)


def MkDir(dirname):  # noqa: N802
    path = _path(dirname)
    try:
        os.mkdir(path)
    except FileExistsError:
        raise AlreadyExistsError(None, None, "%s; File exists" % path) from None
    except FileNotFoundError:
        raise _not_found(path) from None


def Remove(filename):  # noqa: N802
    path = _path(filename)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def DeleteRecursively(dirname):  # noqa: N802
    path = _path(dirname)
    if not os.path.exists(path):
        raise _not_found(path)
    if os.path.isdir(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    old, new = _path(oldname), _path(newname)
    if not overwrite and os.path.exists(new):
        raise AlreadyExistsError(None, None, "file already exists")
    if not os.path.exists(old):
        raise _not_found(old)
    os.replace(old, new)


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    old, new = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(new):
        raise AlreadyExistsError(None, None, "file already exists")
    if not os.path.exists(old):
        raise _not_found(old)
    shutil.copyfile(old, new)


def Stat(filename):  # noqa: N802
    path = _path(filename)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def Walk(top, in_order=True):  # noqa: N802
    """(dirname, subdirectories, files) for `top` and below; nothing if `top` is missing."""
    top = _path(top)
    if not os.path.isdir(top):
        return
    names = sorted(os.listdir(top))
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in subdirs]
    if in_order:
        yield top, subdirs, files
    for sub in subdirs:
        yield from Walk(os.path.join(top, sub), in_order)
    if not in_order:
        yield top, subdirs, files
