"""Which passes a ConfigProto leaves on, read as TensorFlow reads RewriterConfig.

Each of TF's optimizers is a `RewriterConfig.Toggle`: DEFAULT (0) and ON (1) run it,
OFF (2) does not; `disable_meta_optimizer=True` turns every one off. The classic
`OptimizerOptions(opt_level=L0)` ("no optimizations") turns constant folding off
unless `do_constant_folding=True` asks for it. Loop hoisting (`loop_optimization`) is
done by the loop runner (runtime/loop_hoisting.py) when its name is in the set.
"""
__all__ = ["enabled_passes", "PASS_OF_TOGGLE", "LOOP_OPTIMIZATION"]

OFF = 2
L0 = -1
LOOP_OPTIMIZATION = "loop_optimization"

# TF's RewriterConfig field -> the pass of runtime/optimizer it controls.
PASS_OF_TOGGLE = {
    "constant_folding": "shape_folding",
    "shape_optimization": "shape_folding",
    "arithmetic_optimization": "arithmetic",
    "dependency_optimization": "dependency",
    "remapping": "elementwise_chains",
    "loop_optimization": LOOP_OPTIMIZATION,     # runtime/loop_hoisting.py
}


def enabled_passes(config):
    """The names of the passes to run for a Session of `config`."""
    passes = set(PASS_OF_TOGGLE.values())
    graph_options = getattr(config, "graph_options", None)
    if graph_options is None:
        return passes
    rewrite = graph_options.rewrite_options
    if rewrite.disable_meta_optimizer:
        return set()
    for field, name in PASS_OF_TOGGLE.items():
        if getattr(rewrite, field) == OFF:
            passes.discard(name)
    classic = graph_options.optimizer_options
    if classic.opt_level == L0 and not classic.do_constant_folding:
        passes.discard("shape_folding")
    return passes
