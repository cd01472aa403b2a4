"""Who still holds a Session: the user's variable name, or only IPython's history.

A Session the program dropped can stay alive for two reasons in a notebook:
- a reference cycle (every Session that ran is in one: its kernel contexts point back
  at it) — `gc.collect()` frees those, and the session's finalizer gives its memory back;
- IPython itself: the output history (`Out[3]`, `_3`, `_`, `__`, `___`, the displayhook's
  copies, `shell.last_execution_result`) when a cell *showed* the session, and the last
  error (`sys.last_value` / `sys.last_traceback`, whose frames keep the locals of the
  function that failed, e.g. `self` inside `Session.run`).

`only_history_holds(session, shell)` answers whether every reference to a session comes
from those, so the notebook can close it (the object stays in `Out`, closed). It is
Python's own garbage test done by hand: walk the referrers backwards from the session,
stopping at the history containers and failing at once at anything that is a root (the
user's namespace under a non-history name, a module, `sys`'s other attributes); then
check with reference counts that the objects found explain every reference to them —
anything unexplained (a running frame's local, a C-level holder, a thread-local such as
the default-session stack) means "held". Any doubt answers "held": memory a live object
uses is never freed.
"""
import gc
import re
import sys
import types

__all__ = ["only_history_holds", "user_names", "HISTORY_NAME"]

HISTORY_NAME = re.compile(r"^_(_{0,2}|\d+|oh|ih|ii|iii|i\d*)$|^(Out|In)$")
_MAX_OBJECTS = 4000      # a bigger web of referrers: give up, and keep the session
_MAX_LEVELS = 40
_SYS_HISTORY = {"last_value", "last_traceback", "last_exc", "last_type"}


def _history_types():
    kinds = [types.TracebackType]
    try:
        from IPython.core.interactiveshell import ExecutionInfo, ExecutionResult
        kinds += [ExecutionResult, ExecutionInfo]
    except ImportError:                                  # pragma: no cover
        pass
    return tuple(kinds)


def _history_key(shell, key, value):
    """Whether `key` in the user namespace is IPython's history name for `value`.
    `_`, `__`, `___` are the user's own when the user assigned them (IPython then stops
    updating them): they are history only while they are the displayhook's."""
    if not (isinstance(key, str) and HISTORY_NAME.match(key)):
        return False
    if key in ("_", "__", "___"):
        return getattr(getattr(shell, "displayhook", None), key, None) is value
    return True


def _classify(referrer, target, shell, ignored_ids, history_types):
    """'history' (the edge does not count), 'held' or 'walk' (follow it backwards)."""
    if referrer is shell.user_ns or referrer is getattr(shell, "user_ns_hidden", None) \
            or referrer is sys.__dict__:
        # A namespace: history names (`_`, `_3`, `Out`... or sys.last_*) do not count;
        # any other name is the program's own reference.
        keys = [k for k, v in list(referrer.items()) if v is target]
        if referrer is sys.__dict__:
            held = [k for k in keys if k not in _SYS_HISTORY]
        else:
            held = [k for k in keys if not _history_key(shell, k, target)]
        return "held" if held or not keys else "history"
    if id(referrer) in ignored_ids or isinstance(referrer, history_types):
        return "history"
    if isinstance(referrer, types.ModuleType):
        return "held"
    if isinstance(referrer, dict) and "__name__" in referrer and "__builtins__" in referrer:
        return "held"                                    # some module's globals
    return "walk"


def only_history_holds(session_ref, shell):
    """True when only IPython's output history, the last error or reference cycles keep
    the session `session_ref()` alive (so closing it frees memory nobody can use by
    name). Takes a weak reference: a strong one held by the caller would be a
    reference this test cannot explain, and the answer would always be "held"."""
    session = session_ref()
    if session is None:
        return False
    history_types = _history_types()
    dh = getattr(shell, "displayhook", None)
    ignored = [shell.user_ns.get("_oh"), dh, getattr(dh, "__dict__", None)]
    ignored_ids = {id(o) for o in ignored if o is not None}
    del ignored
    members = [session]                  # the objects whose references must be explained
    member_ids = {id(session)}
    edges = {}                           # id(member) -> references explained so far
    frontier = [session]
    own = {id(members), id(frontier), id(sys._getframe())}
    ref = target = hits = referrers = None
    try:
        for _ in range(_MAX_LEVELS):
            if not frontier:
                break
            referrers = gc.get_referrers(*frontier)
            own.add(id(referrers))
            next_frontier = []
            own.add(id(next_frontier))
            for ref in referrers:
                if id(ref) in own or (isinstance(ref, types.FrameType)
                                      and ref.f_code.co_filename == __file__):
                    continue
                hits = [o for o in gc.get_referents(ref) if id(o) in member_ids]
                for target in hits:
                    verdict = _classify(ref, target, shell, ignored_ids, history_types)
                    if verdict == "held":
                        return False
                    edges[id(target)] = edges.get(id(target), 0) + 1
                    if verdict == "walk" and id(ref) not in member_ids:
                        member_ids.add(id(ref))
                        members.append(ref)
                        next_frontier.append(ref)
                        if len(members) > _MAX_OBJECTS:
                            return False
            frontier = next_frontier
            ref = target = hits = referrers = next_frontier = None
        else:
            return False                                 # too deep: keep it
        session = None       # this frame's own reference, which no walk would explain
        return _refcounts_explained(members, edges)
    finally:
        members = frontier = session = None


def _refcounts_explained(members, edges):
    """Whether the edges found account for every reference to every member: what gc
    does to find garbage. The references this test itself holds (the `members` list,
    the loop variable, the call's argument) are measured on a probe held the same way,
    so the answer does not depend on interpreter details."""
    members.append(object())             # the probe: held by `members` only
    try:
        counts = [sys.getrefcount(obj) for obj in members]
    finally:
        members.pop()
    baseline = counts.pop()
    return all(count - baseline <= edges.get(id(obj), 0)
               for obj, count in zip(members, counts))


def user_names(session, shell, limit=3):
    """The names a student would use for `session`: 'sess', 'model.sess',
    'sessions[0]', "runs['a']" — looked up in the user namespace, one level deep."""
    ns = shell.user_ns
    direct, nested = [], []
    for name, value in list(ns.items()):
        if not isinstance(name, str) or name.startswith("_") or HISTORY_NAME.match(name):
            continue                      # `_`, `_3`, `_i3`, private names, In/Out
        if value is session:
            direct.append(name)
        elif isinstance(value, (list, tuple)):
            nested += ["%s[%d]" % (name, i) for i, v in enumerate(value[:1000])
                       if v is session]
        elif isinstance(value, dict):
            nested += ["%s[%r]" % (name, k) for k, v in list(value.items())[:1000]
                       if v is session]
        elif not isinstance(value, (types.ModuleType, type)):
            attrs = getattr(value, "__dict__", None)
            if isinstance(attrs, dict):
                nested += ["%s.%s" % (name, k) for k, v in list(attrs.items())
                           if v is session]
    return (sorted(direct) + sorted(nested))[:limit]
