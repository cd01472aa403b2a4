"""TensorFlow's V1 checkpoint reader (`TensorSliceReader`), as far as its errors go.

RestoreV2 and `NewCheckpointReader` read a prefix that has no `PREFIX.index` as a V1
checkpoint: TF's TensorSliceReader opens every file matching the prefix (a glob
pattern) as a table. That is where the paths students pass instead of a prefix fail,
and TF 1.15's words are those of that reader, a DataLossError:

    saver.restore(sess, "ckpt")             # the directory: "...: Failed precondition:
                                            #   ckpt; Is a directory: perhaps ..."
    saver.restore(sess, "ckpt/m-10.meta")   # "...: Data loss: not an sstable (bad magic
                                            #   number): perhaps ..."

(the inner status printed as 1.15's Status::ToString did: "Failed precondition: ",
"Data loss: "). tfteach reads no V1 checkpoints (TF has written V2 since 1.0): a file
that is a table passes `open_tables`, and its callers then find no tensors in it.
"""
import glob
import os

from tfteach.framework.errors import DataLossError, NotFoundError
from tfteach.framework.hints import with_hint
from tfteach.io.table import TableError, read_table

__all__ = ["open_tables"]

_OTHER_FORMAT = (": perhaps your file is in a different file format and you need to use a "
                 "different restore operator?")


def _table_status(fname):
    """1.15's Status text of opening `fname` as a table, or None when it is one."""
    if os.path.isdir(fname):
        # TF opens the directory, then reading its footer fails with EISDIR.
        return "Failed precondition: %s; Is a directory" % os.path.normpath(fname)
    with open(fname, "rb") as f:
        raw = f.read()
    try:
        read_table(raw)
    except TableError as e:
        return "Data loss: %s" % e
    return None


def open_tables(filepattern):
    """The files matching `filepattern`, each a table; TF's error where one is not."""
    fnames = sorted(glob.glob(filepattern))
    if not fnames:
        raise NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed "
                            "to find any matching files for %s" % filepattern)
    for fname in fnames:
        status = _table_status(fname)
        if status is not None:
            raise with_hint(DataLossError(None, None, "Unable to open table file %s: %s%s" % (
                fname, status, _OTHER_FORMAT)), "checkpoint_prefix")
    return fnames
