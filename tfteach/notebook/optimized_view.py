"""What the optimizer did to a recorded run, for `%%tfgraph --optimized` (docs/optimizer.md).

A traced run (every `%%tfgraph` run is) executes the graph as built, one op at a time;
untraced runs execute the plan's optimized steps (runtime/optimizer). This module asks
the run's Session for that plan and lists its rewrites as plain dicts, which the
export carries in each run's `optimized` field and graph_dot draws: folded and
read-through nodes faded with the pass that removed them, fused nodes marked with the
pass and the step they became.
"""
__all__ = ["rewrites_of_record", "marks", "FUSING"]

# What each pass does to the nodes it names, in the picture's words.
_VERB = {"shape_folding": "folded", "shape_specialisation": "folded for the fed shapes",
         "arithmetic": "read through", "dependency": "read through",
         "redundant_shape_ops": "read through",
         "elementwise_chains": "fused", "elementwise_regions": "fused"}
# The passes whose nodes become one step (drawn as fused, not as gone); a loop body's
# concat gradient is one step of Python, not a Numba kernel.
FUSING = ("elementwise_chains", "elementwise_regions", "loop_concat_gradient")
# The passes whose own words say what became of their nodes: loop_optimization's
# ("computed once per loop run", "reads W^T ..."), loop_specialisation's ("folded for
# the fed shapes", "read through").
_OWN_WORDS = ("loop_optimization", "loop_specialisation")


def rewrites_of_record(record):
    """[{"pass", "nodes", "result"}] for the plan of a run observer's `record`."""
    session, graph = record.session, record.graph
    try:
        fetches = tuple(graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                        for n in record.fetches)
        feeds = tuple(graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                      for n in record.feeds)
        targets = tuple(graph.as_graph_element(n, allow_tensor=False, allow_operation=True)
                        for n in record.targets)
        # the same list as runtime.optimizer.rewrites_of: the latest fed-shape
        # signature's folds, and what the plan's loops hoisted out of their bodies
        from tfteach.runtime.optimizer import rewrites_of
        rewrites = rewrites_of(session, fetches + targets, feeds)
    except Exception:  # noqa: BLE001 - a view never breaks the cell
        return []
    return [{"pass": r.pass_name, "nodes": list(r.nodes), "result": r.result}
            for r in rewrites]


def marks(run):
    """node name -> (pass, words for the picture) for an exported run's `optimized`."""
    out = {}
    for k, rewrite in enumerate(run.get("optimized") or []):
        name = rewrite["pass"]
        verb = rewrite["result"] if name in _OWN_WORDS else _VERB.get(name, name)
        if name in FUSING:
            nodes = rewrite["nodes"]
            numba = _in_numba_runs(rewrite["result"], len(nodes)) \
                if name == "elementwise_chains" else \
                [name == "elementwise_regions"] * len(nodes)
            for i, node in enumerate(nodes):
                kernel = ", Numba kernel" if numba[i] else ""
                out[node] = (name, "fused %d/%d%s (%s)" % (i + 1, len(nodes), kernel, name))
            continue
        for node in rewrite["nodes"]:
            out[node] = (name, "%s (%s)" % (verb, name))
    return out


def _in_numba_runs(result, count):
    """For each link of a fused chain, whether it runs inside a `Numba[...]` kernel,
    read from the chain's result ("one step: Tanh -> Numba[Mul -> AddV2] -> Tanh"):
    one op type per link, in order. All False where the words do not say (other
    wording, or a count that does not match the chain's nodes)."""
    words = result.split(": ", 1)[-1].split(" -> ")
    flags, inside = [], False
    for word in words:
        if word.startswith("Numba["):
            inside = True
        flags.append(inside)
        if word.endswith("]"):
            inside = False
    return flags if len(flags) == count else [False] * count
