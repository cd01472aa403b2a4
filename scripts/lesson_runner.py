"""Runs a lesson notebook the way tests/test_lessons.py does, from any Python that has
nbformat and nbclient (a fresh venv, a Binder image): exercises replaced by
lessons/solutions/<stem>.py, executed on a named kernel, then checked — no cell failed
unless tagged `raises-exception` (and those did fail), every check cell said "right!".

Used by scripts/run_lesson.py (CI's installed-wheel check, tests/test_binder.py) and
scripts/measure_lessons.py (per-student sizing, docs/classroom.md). Imports nothing from
tfteach, so the kernel's tfteach is the installed one.
"""
import os
import re

import nbformat
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK_CALL = re.compile(r"""check\(\s*["']([\w.-]+)["']\s*,\s*answer\s*,\s*["']([0-9a-f]{16})["']""")


def solutions_for(lesson_path):
    """{grade_id: source} from lessons/solutions/<stem>.py, split at `# %% <id>`."""
    stem = os.path.splitext(os.path.basename(lesson_path))[0]
    path = os.path.join(os.path.dirname(os.path.abspath(lesson_path)), "solutions",
                        stem + ".py")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        parts = re.split(r"^# %% ([\w.-]+)[ \t]*$", f.read(), flags=re.M)
    return {grade_id: body.strip("\n") for grade_id, body in zip(parts[1::2], parts[2::2])}


def with_solutions(nb, lesson_path):
    solutions = solutions_for(lesson_path)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            if grade_id not in solutions:
                raise ValueError("%s: exercise %s has no solution" % (lesson_path, grade_id))
            cell.source = solutions[grade_id]
    return nb


def problems(nb):
    """What went wrong in an executed notebook (empty list: nothing)."""
    found = []
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            if not errors:
                found.append("cell %d was to raise and did not" % k)
        elif errors:
            found.append("cell %d failed: %s: %s" % (k, errors[0].ename, errors[0].evalue))
        check = CHECK_CALL.search(cell.source)
        if check:
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            if "%s: right!" % check.group(1) not in text:
                found.append("cell %d: exercise %s not right" % (k, check.group(1)))
    return found


class LessonClient(NotebookClient):
    """nbclient's client with a hook after each cell (`after_cell(client, index, cell)`)."""

    def __init__(self, nb, after_cell=None, **kw):
        super().__init__(nb, **kw)
        self._after_cell = after_cell

    async def async_execute_cell(self, cell, cell_index, *args, **kw):
        result = await super().async_execute_cell(cell, cell_index, *args, **kw)
        if self._after_cell is not None:
            self._after_cell(self, cell_index, cell)
        return result


def execute(lesson_path, kernel_name="tfteach", timeout=120, after_cell=None, nb=None):
    """Executes the lesson (or `nb`) with its solutions; returns the executed notebook.
    Cells keep running after an error (so problems() lists every one)."""
    if nb is None:
        nb = with_solutions(nbformat.read(lesson_path, as_version=4), lesson_path)
    client = LessonClient(nb, after_cell=after_cell, timeout=timeout, kernel_name=kernel_name,
                          allow_errors=True,
                          resources={"metadata": {"path": os.path.dirname(
                              os.path.abspath(lesson_path))}})
    client.execute()
    return nb
