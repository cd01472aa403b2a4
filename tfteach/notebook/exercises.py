"""Self-checking exercises for the lessons (docs/lessons.md).

A lesson's exercise is two cells: the student's cell, which assigns an answer
(`answer = ...` until the student writes one), and a check cell:

    from tfteach.notebook.exercises import check
    check("ex05_1", answer, "3f1c9a0b6d2e4f71")

`check` says whether the answer is right without showing it: it compares a digest of
the answer (values rounded to a few significant digits, with their shape and kind)
with the digest of the right one, computed when the lesson was written. It prints one
line and returns True or False; it never raises in a student's notebook, so a lesson
still runs top to bottom with exercises left undone. Under nbgrader's autograder
(`NBGRADER_EXECUTION` set) a wrong answer raises AssertionError, so the check cells,
marked as nbgrader "grade" cells, give points.
"""
import hashlib
import os

import numpy as np

__all__ = ["check", "digest", "NOT_ANSWERED"]

NOT_ANSWERED = Ellipsis          # what `answer = ...` leaves in a student's cell
SIGNIFICANT = 4                  # digits kept before hashing: float32 noise is ignored


def _canonical(value):
    """A text form of `value` that equal answers share: numbers rounded to
    SIGNIFICANT digits (so 0.30000001 == 0.3), containers element by element."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return repr(bool(value) if value is not None else None)
    if isinstance(value, str):
        return "s:" + " ".join(value.split())
    if isinstance(value, bytes):
        return "b:" + value.hex()
    if isinstance(value, dict):
        return "{%s}" % ",".join("%s:%s" % (_canonical(k), _canonical(value[k]))
                                 for k in sorted(value, key=repr))
    if isinstance(value, (list, tuple)) and not _is_numeric_sequence(value):
        return "[%s]" % ",".join(_canonical(v) for v in value)
    array = np.asarray(value)
    if array.dtype.kind in "US":
        return "s:" + "|".join(" ".join(str(v).split()) for v in array.ravel())
    if array.dtype.kind == "b":
        return "a%s:%s" % (array.shape, array.astype(np.uint8).tobytes().hex())
    if array.dtype.kind not in "iuf":
        raise TypeError("check() compares numbers, arrays, strings, lists and dicts, "
                        "not %s" % type(value).__name__)
    numbers = array.astype(np.float64).ravel()
    text = ",".join(_round(v) for v in numbers)
    return "a%s:%s" % (array.shape, text)


def _is_numeric_sequence(value):
    try:
        return np.asarray(value).dtype.kind in "iufb"
    except (ValueError, TypeError):    # ragged: compared element by element
        return False


def _round(number):
    if not np.isfinite(number):
        return repr(float(number))
    if number == 0:
        return "0"
    text = "%.*e" % (SIGNIFICANT - 1, number)
    return "0" if float(text) == 0 else text


def digest(value):
    """The digest a check cell stores for the right answer `value`."""
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()[:16]


def check(grade_id, answer, expected_digest, hint=None):
    """Prints whether `answer` is right (never the right answer); returns a bool."""
    if answer is NOT_ANSWERED:
        print("%s: not answered yet — replace the ... with your answer and run both cells"
              % grade_id)
        right = False
    else:
        try:
            right = digest(answer) == expected_digest
        except TypeError as e:
            print("%s: %s" % (grade_id, e))
            right = False
        else:
            if right:
                print("%s: right! ✓" % grade_id)
            else:
                print("%s: not yet ✗%s" % (grade_id, " — hint: %s" % hint if hint else ""))
    if not right and os.environ.get("NBGRADER_EXECUTION"):
        raise AssertionError("%s: wrong or missing answer" % grade_id)
    return right
