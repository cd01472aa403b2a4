"""Every lesson executes top to bottom on the tfteach kernel, with its exercises solved
(docs/lessons.md).

Each `lessons/NN_*.ipynb` is stored without outputs. Its exercise cells (nbgrader
"solution" cells, `answer = ...` for the student) are replaced by the solutions in
`lessons/solutions/NN_*.py` (sections `# %% <grade_id>`), the notebook is executed by
nbclient on the tfteach kernel, and then: no cell failed unless tagged
`raises-exception` (and those did fail), and every check cell said "right!". So the
stored lesson is what runs, a wrong solution or a check digest that does not match
fails, and an exercise without a solution fails. `pytest --durations` (the Makefile's
`make test`) lists the slowest lessons.
"""
import glob
import os
import re
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from lesson_runner import CHECK_CALL, execute, problems, solutions_for  # noqa: E402
from nb_kernel_helpers import tfteach_kernel  # noqa: E402,F401 (fixture)
from tfteach.notebook.exercises import NOT_ANSWERED, check, digest  # noqa: E402

LESSONS = sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*.ipynb")))


def nbgrader(cell):
    return cell.metadata.get("nbgrader", {})


def exercise_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and nbgrader(c).get("solution")]


def test_there_are_lessons():
    assert len(LESSONS) >= 1


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_lesson_is_stored_clean_and_well_formed(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "tfteach"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not any(c.get("outputs") or c.get("execution_count") for c in code)
    solutions = solutions_for(path)
    ids = [nbgrader(c)["grade_id"] for c in exercise_cells(nb)]
    assert len(ids) == len(set(ids))
    assert sorted(ids) == sorted(solutions), "exercises and lessons/solutions differ"
    for k, cell in enumerate(nb.cells):
        if not (cell.cell_type == "code" and nbgrader(cell).get("solution")):
            continue
        assert re.search(r"^answer = \.\.\.", cell.source, flags=re.M), cell.source
        checker = nb.cells[k + 1]                   # the check cell right after it
        assert nbgrader(checker).get("grade") and nbgrader(checker).get("locked")
        found = CHECK_CALL.search(checker.source)
        assert found and found.group(1) == nbgrader(cell)["grade_id"], checker.source


@pytest.fixture
def busy_host_remedy(monkeypatch):
    """Under `make test`'s two pytest-xdist workers the other worker keeps a core busy, and
    OpenBLAS's two threads then wait for time slices after every block of every product:
    lesson 18 took 136 s instead of 19 (docs/engine.md, "Threads"). Its kernel gets the
    documented remedy for a busy host, one BLAS thread (the kernel inherits this
    environment). In one process (TEST_WORKERS=0) the kernel keeps OpenBLAS's default."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(p) for p in LESSONS])
def test_lesson_executes_with_its_exercises_solved(path, tfteach_kernel, tmp_path,
                                                   busy_host_remedy):
    # the exercises replaced by lessons/solutions, executed on the tfteach kernel, every
    # cell checked (scripts/lesson_runner.py, shared with the Binder and wheel checks)
    before = set(os.listdir(os.path.dirname(path)))
    try:
        nb = execute(path, kernel_name=tfteach_kernel)
    finally:
        left = set(os.listdir(os.path.dirname(path))) - before
    nbformat.write(nb, str(tmp_path / os.path.basename(path)))      # for a look
    assert problems(nb) == []
    assert not left, "the lesson left files in lessons/: %s" % sorted(left)


# -- the check itself ------------------------------------------------------------------------------
def test_check_says_right_or_not_yet_without_showing_the_answer(capsys, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    right = digest([[0.1 + 0.2, 2.0], [3.0, 4.0]])
    assert check("ex", [[0.3, 2], [3, 4.00001]], right)           # float noise is ignored
    assert not check("ex", [[0.3, 2], [3, 4.1]], right)
    assert not check("ex", [0.3, 2, 3, 4], right)                  # the shape counts
    assert not check("ex", NOT_ANSWERED, right)
    out = capsys.readouterr().out
    assert "ex: right!" in out and out.count("not yet") == 2 and "not answered yet" in out
    assert "0.3" not in out and "4.1" not in out


def test_check_kinds_of_answers():
    assert digest("Hello  world") == digest("Hello world")
    assert digest(True) != digest(1)
    assert digest({"a": 1.0, "b": [1, 2]}) == digest({"b": [1.0, 2.0], "a": 1})
    assert digest(-0.0) == digest(0.0) and digest(float("nan")) == digest(float("nan"))
    assert digest([[1], [2, 3]]) != digest([[1, 2], [3]])          # ragged lists
    assert digest(1e-12) != digest(0.0)


def test_under_nbgrader_a_wrong_answer_raises(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert check("ex", 3, digest(3))
    with pytest.raises(AssertionError, match="ex: wrong or missing answer"):
        check("ex", 4, digest(3))
    with pytest.raises(AssertionError):
        check("ex", NOT_ANSWERED, digest(3))
