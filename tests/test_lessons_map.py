"""lessons/README.md maps every section of the five course notes to the lesson that teaches it.

The notes (`$TFTEACH_SEEDS`, default ../shared/seeds next to the checkout, or /work/shared/seeds)
are Markdown written by different people, so each has its own heading rule
(`NOTE_RULES`), chosen to find exactly the sections of the section maps in
docs/seed-inventory.md:

- every note: ATX headings (`#` ... `######` at the start of a line, with text) outside
  fenced code (``` and ~~~ fences, also inside lists and quotes: the `# comments` of code
  blocks are not headings), and a heading's Markdown links read as their text;
- note 000 also: Setext headings (a line underlined with `===` or `---`), which its quoted
  blog posts and its copy of the "Using GPUs" guide use inside indented and `>` blocks;
- note 002 also: its closing "个人感想：" paragraph, a line ending in a full-width colon
  right after a `---` rule.

The notes live outside the repository, so their headings are also kept in
tests/notes_headings.json: where the notes are (`$TFTEACH_SEEDS`, ../shared/seeds), a test
checks that file against them; the map is always checked against that file, in CI too.

The README has one table per note: `| L<line> | `heading` | where it is taught |`. The tests
check that the table lists exactly the note's headings (none missing, none stale), that
every lesson it names exists and has the section it points to (`§3` = the lesson's
markdown heading `## 3. ...`, `§1.2` = `### 1.2 ...`; `§ (to be filled)` while a lesson's
sections are not mapped yet), that a row without a lesson says "to come (issue N)" or
"not taught: <why>", and that every lesson in lessons/ appears in the map.
"""
import glob
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS_DIR = os.path.join(ROOT, "lessons")
README = os.path.join(LESSONS_DIR, "README.md")
FROZEN = os.path.join(ROOT, "tests", "notes_headings.json")
FUTURE_ISSUES = {"19"}     # TF2, Keras (eager, tf.function, tf.Module, Checkpoint)


def seeds_dir():
    for candidate in (os.environ.get("TFTEACH_SEEDS"),
                      os.path.join(os.path.dirname(ROOT), "shared", "seeds"),
                      "/work/shared/seeds"):
        if candidate and os.path.isdir(candidate):
            return candidate
    return None


# -- the notes' headings --------------------------------------------------------------------
CONTAINER = re.compile(r"^[ \t]*(?:>[ \t]?)*[ \t]*")      # list indentation, quote markers
FENCE = re.compile(r"^(`{3,}|~{3,})")
ATX = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^(?:={2,}|-{2,})[ \t]*$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")

NOTE_RULES = {
    "000_a8d11d4f5785b214.txt": {"setext": True},
    "001_f95b5ca467270707.txt": {},
    "002_3864356af66c2a4f.txt": {"colon_after_rule": True},
    "003_25e57dc130f4b3b7.txt": {},
    "004_bf2fa1d2022ee78e.txt": {},
}


def heading_text(text):
    """A heading as the map writes it: links read as their text, spaces folded."""
    return " ".join(LINK.sub(r"\1", text).split())


def note_headings(path, setext=False, colon_after_rule=False):
    """[(line number, heading text)] of one note, by the rules above."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    fence = None
    previous = ""                       # the previous line's text without its container
    for number, raw in enumerate(lines, 1):
        text = CONTAINER.sub("", raw, count=1)
        opener = FENCE.match(text)
        if fence:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
                previous = "```"        # a fence's end is not a Setext heading's text
            continue
        if opener:
            fence = opener.group(1)
            continue
        atx = ATX.match(raw)
        if atx and heading_text(atx.group(2)).strip("#"):
            found.append((number, heading_text(atx.group(2))))
        elif (setext and SETEXT_UNDERLINE.match(text) and previous.strip()
              and previous != "```" and not previous.lstrip().startswith(("-", "*", "|", "#"))):
            found.append((number - 1, heading_text(previous)))
        elif colon_after_rule and text.strip().endswith("：") and _after_rule(lines, number):
            found.append((number, heading_text(text)))
        previous = text
    return found


def _after_rule(lines, number):
    k = number - 2
    while k >= 0 and not lines[k].strip():
        k -= 1
    return k >= 0 and lines[k].strip() == "---"


# -- the map --------------------------------------------------------------------------------------
ROW = re.compile(r"^\|\s*L(\d+)\s*\|\s*`([^`]*)`\s*\|(.*)\|\s*$")
NOTE_SECTION = re.compile(r"^#{2,3} .*?`?(\d{3}_[0-9a-f]{16}\.txt)`?")
LESSON_REF = re.compile(r"(\d\d_[a-z0-9_]+\.ipynb)\)?\s*(§\s*\(to be filled\)|§[\d.]+)?")


def read_map(text):
    """{note file: [(line, heading, where)]} from the README's tables."""
    rows = {}
    note = None
    for line in text.splitlines():
        section = NOTE_SECTION.match(line)
        if section:
            note = section.group(1)
            rows.setdefault(note, [])
            continue
        row = ROW.match(line)
        if row and note:
            rows[note].append((int(row.group(1)), " ".join(row.group(2).split()),
                               row.group(3).strip()))
    return rows


def lesson_anchors(path):
    """The anchors `§N` (## N. ...) and `§N.M` (### N.M ...) of a lesson."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    anchors = set()
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for line in source.splitlines():
            found = re.match(r"^(##|###) (\d+(?:\.\d+)?)\.?\s", line)
            if found and (found.group(1) == "##") == ("." not in found.group(2)):
                anchors.add("§" + found.group(2))
    return anchors


def problems_with_where(where, lessons_dir=LESSONS_DIR, anchors_cache=None):
    """What is wrong with one 'where it is taught' cell ([] if nothing)."""
    anchors_cache = {} if anchors_cache is None else anchors_cache
    problems = []
    refs = LESSON_REF.findall(where)
    for lesson, anchor in refs:
        path = os.path.join(lessons_dir, lesson)
        if not os.path.exists(path):
            problems.append("%s does not exist" % lesson)
            continue
        if not anchor:
            problems.append("%s: no § anchor" % lesson)
        elif "to be filled" not in anchor:
            if path not in anchors_cache:
                anchors_cache[path] = lesson_anchors(path)
            if anchor.replace(" ", "") not in anchors_cache[path]:
                problems.append("%s has no section %s" % (lesson, anchor))
    future = re.findall(r"to come \(issue (\d+)\)", where)
    if any(issue not in FUTURE_ISSUES for issue in future):
        problems.append("unknown issue in %r" % where)
    if not refs and not future and not where.startswith("not taught:"):
        problems.append("no lesson, no 'to come (issue N)', no 'not taught: ...': %r" % where)
    return problems


def frozen_headings():
    """{note: [(line, heading)]} from tests/notes_headings.json."""
    with open(FROZEN, encoding="utf-8") as f:
        return {note: [tuple(item) for item in items] for note, items in json.load(f).items()}


def map_problems(readme_text, headings, lessons_dir=LESSONS_DIR):
    """Every way the map disagrees with the notes' headings ({note: [(line, heading)]}) and
    the lessons, as a list of strings."""
    rows = read_map(readme_text)
    problems = []
    for note in NOTE_RULES:
        expected = headings[note]
        listed = [(line, heading) for line, heading, _ in rows.get(note, [])]
        for item in expected:
            if item not in listed:
                problems.append("%s: heading L%d %r is not in the map" % ((note,) + item))
        for item in listed:
            if item not in expected:
                problems.append("%s: the map's L%d %r is not a heading of the note"
                                % ((note,) + item))
    cache = {}
    named = set()
    for note, entries in rows.items():
        for line, heading, where in entries:
            named.update(lesson for lesson, _ in LESSON_REF.findall(where))
            problems += ["%s L%d: %s" % (note, line, p)
                         for p in problems_with_where(where, lessons_dir, cache)]
    for path in sorted(glob.glob(os.path.join(lessons_dir, "[0-9][0-9]_*.ipynb"))):
        if os.path.basename(path) not in named:
            problems.append("%s is not in the map" % os.path.basename(path))
    return problems


# -- tests ----------------------------------------------------------------------------------
needs_seeds = pytest.mark.skipif(seeds_dir() is None, reason="the course notes are not here "
                                 "(set TFTEACH_SEEDS to the folder holding 000_*.txt ...)")


def read_readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


@needs_seeds
def test_the_rules_find_the_inventorys_sections():
    # Spot checks from docs/seed-inventory.md's section maps, one kind of heading each.
    seeds = seeds_dir()
    found = {note: note_headings(os.path.join(seeds, note), **rule)
             for note, rule in NOTE_RULES.items()}
    assert (15, "Session") in found["000_a8d11d4f5785b214.txt"]                  # Setext in a quote
    assert (1781, "Logging Device placement") in found["000_a8d11d4f5785b214.txt"]  # indented
    assert (135, "关于Tensorflow的图计算过程") in found["000_a8d11d4f5785b214.txt"]    # a link
    assert not any(n == 449 for n, _ in found["000_a8d11d4f5785b214.txt"])      # code comment
    assert (330, "global_step") in found["001_f95b5ca467270707.txt"]            # ######
    assert not any(n == 223 for n, _ in found["001_f95b5ca467270707.txt"])
    assert found["002_3864356af66c2a4f.txt"][-1] == (1061, "个人感想：")
    assert not any(n in (803, 815) for n, _ in found["003_25e57dc130f4b3b7.txt"])  # ~~~ fence
    assert (4398, "> TensorBoard 可视化") in found["004_bf2fa1d2022ee78e.txt"]
    assert [len(found[n]) for n in NOTE_RULES] == [70, 64, 29, 37, 104]


@needs_seeds
def test_the_kept_headings_are_the_notes_headings():
    seeds = seeds_dir()
    assert frozen_headings() == {note: note_headings(os.path.join(seeds, note), **rule)
                                 for note, rule in NOTE_RULES.items()}


def test_the_map_lists_every_section_of_the_notes_and_only_those():
    problems = map_problems(read_readme(), frozen_headings())
    assert not problems, "\n".join(problems)


def test_a_heading_removed_from_the_map_is_noticed():
    text = read_readme()
    row = next(line for line in text.splitlines() if line.startswith("| L1694 |"))
    problems = map_problems(text.replace(row + "\n", ""), frozen_headings())
    assert any("L1694 'ValueError: No gradients provided for any variable' is not in the map"
               in p for p in problems), problems
    # a heading changed in the map: missing, and a stale row
    problems = map_problems(text.replace("| L6 | `Tutorial` |", "| L6 | `Tutorials` |"),
                            frozen_headings())
    assert any("L6 'Tutorial' is not in the map" in p for p in problems), problems
    assert any("L6 'Tutorials' is not a heading of the note" in p for p in problems), problems


def test_a_missing_lesson_or_section_is_noticed(tmp_path):
    text = read_readme()
    broken = text.replace("21_troubleshooting.ipynb §5", "21_troubleshooting.ipynb §55")
    problems = map_problems(broken, frozen_headings())
    assert any("21_troubleshooting.ipynb has no section §55" in p for p in problems), problems
    # a lesson in lessons/ that the map never names
    for path in glob.glob(os.path.join(LESSONS_DIR, "*.ipynb")):
        os.symlink(path, tmp_path / os.path.basename(path))
    (tmp_path / "22_extra.ipynb").write_text('{"cells": []}', encoding="utf-8")
    problems = map_problems(text, frozen_headings(), lessons_dir=str(tmp_path))
    assert "22_extra.ipynb is not in the map" in problems


def test_where_cells_are_checked():
    assert problems_with_where("not taught: a link only") == []
    assert problems_with_where("to come (issue 19): Keras") == []
    assert problems_with_where("to come (issue 17): saving")      # issue 17 is taught now
    assert problems_with_where("to come (issue 18): queues")      # and issue 18
    assert problems_with_where("to come (issue 42): ?")
    assert problems_with_where("somewhere")
    assert problems_with_where("99_nothing.ipynb §1") == ["99_nothing.ipynb does not exist"]
