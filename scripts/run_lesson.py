"""Executes lessons on an installed kernel and says whether each ran clean.

    python scripts/run_lesson.py [--kernel tfteach] [--timeout S] LESSON.ipynb...

Exit status 1 when a lesson had a problem (a failed cell, an exercise not right). Used
where tests/test_lessons.py cannot be: in a fresh environment holding only the installed
wheel (scripts/check_dist.sh) or a replayed Binder image (tests/test_binder.py).
"""
import argparse
import sys
import time

from lesson_runner import execute, problems


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("lessons", nargs="+")
    parser.add_argument("--kernel", default="tfteach")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args(argv)
    failed = 0
    for path in args.lessons:
        start = time.perf_counter()
        found = problems(execute(path, args.kernel, args.timeout))
        print("%s: %s in %.1f s" % (path, "ok" if not found else "FAILED",
                                    time.perf_counter() - start))
        for line in found:
            print("  " + line)
        failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
