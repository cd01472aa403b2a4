"""The graph optimizer: Grappler for the classroom (docs/optimizer.md).

Between pruning and execution, TensorFlow's Grappler rewrites the graph a run needs:
it folds shape arithmetic once shapes are known, drops Identity and NoOp nodes, turns
`x * 1` into `x`, and fuses chains of elementwise ops. tfteach does the same to the
fast loop's steps of a `Plan` (runtime/executor.py), after the plan's own constant
folding and fusions (runtime/fusion.py), with passes that are each one small module:

- `shape_folding`   Shape/Size/Rank of a statically known shape become constants, and
                    the pure ops computing from them (BroadcastGradientArgs, Pack, ...)
                    fold with them (TF's constant_folding, MaterializeShapes);
- `redundant_shape_ops` a Sum over no axes and a Reshape to the input's own shape
                    (what undoes a broadcast that did not happen) read their input
                    (TF's constant_folding: SimplifyReduction, RemoveRedundantReshape);
- `arithmetic`      `x * 1`, `x / 1`, `x - 0`, `x + (-0.0)` (integers: `x + 0`) read
                    `x` itself: only where the result is bit-identical
                    (TF's arithmetic_optimization);
- `dependency`      Identity steps read through, NoOp steps dropped
                    (TF's dependency_optimization);
- `specialise`      where a Shape waits for a fed shape (`[None, 1]`), the steps are
                    folded again for each fed-shape signature, cached (TF's constant
                    folding on the shapes Grappler is fed);
- `elementwise_regions` a run of float32 elementwise ops on matrices with an op a
                    chain cannot take or a value read twice (an RNN cell's gates
                    and their gradient) runs as one Numba kernel that calls
                    NumPy's own exp/tanh loops (TF's remapping; TF's
                    LSTMBlockCell does it by hand);
- `elementwise_chains` a chain of float ufunc ops, each value read by the next op
                    only, runs as one step that writes one buffer in place
                    (TF's remapping; XLA would make one kernel).

A loop's body sub-plans are plans too; what is invariant across their iterations is
hoisted out by the loop runner (runtime/loop_hoisting.py, TF's `loop_optimization`).

Every pass keeps the values bit-identical to the unoptimized plan
(tests/test_optimizer.py runs a corpus of graphs both ways). A traced run
(`RunOptions(trace_level=FULL_TRACE)`, the notebook's views) runs the graph as built,
one op at a time; `Plan.rewrites` lists what the passes did, and `rewrites_of(sess,
fetches, feed_dict)` shows it for a run. `ConfigProto.graph_options.rewrite_options`
(`RewriterConfig`) and `OptimizerOptions` turn passes off, as in TensorFlow (toggles.py).
"""
from tfteach.runtime.optimizer import (arithmetic, dependency, elementwise_chains,
                                       elementwise_regions, redundant_shape_ops,
                                       shape_folding, specialise, toggles)
from tfteach.runtime.optimizer.rewrite import Rewrite
from tfteach.runtime.optimizer.slots import reassign_frees

__all__ = ["optimize", "PASSES", "Rewrite", "rewrites_of", "NOT_OPTIMIZED"]

# rewrites_of's pass name for a plan the optimizer left as built (with why, no nodes).
NOT_OPTIMIZED = "not_optimized"

# In the order they run: folding first (it makes constants the others read),
# then what reads through steps, then the fusion of what is left.
# shape specialisation and chain fusion come last (specialise.wrap, `finish` below):
# a specialised list of steps is fused again for each fed-shape signature.
PASSES = (shape_folding, redundant_shape_ops, arithmetic, dependency)


def optimize(plan, config, feed_tensors=()):
    """The plan's fast steps after the passes `config` (a ConfigProto) leaves on.
    Records what each pass did in `plan.rewrites`. `feed_tensors`: the plan's fed
    tensors, in the order of its feed slots (shape specialisation keys on their shapes)."""
    enabled = toggles.enabled_passes(config)
    steps = plan.fast_steps
    rewrites = []
    for optimizer_pass in PASSES:
        if getattr(optimizer_pass, "ENABLED_BY", optimizer_pass.NAME) in enabled:
            steps = optimizer_pass.run(steps, plan, rewrites)
    keep = set(plan.feed_slots) | set(plan.fetch_slots)
    before = list(plan.fast_steps)

    def finish(steps, record=rewrites):
        """What runs after the shapes are known: region fusion, then chain fusion of
        what is left, then the frees (`remapping` switches both, as TF's remapper
        does its fusions)."""
        if elementwise_chains.NAME in enabled:
            if not plan.accounted:
                steps = elementwise_regions.run(steps, plan, record)
            steps = elementwise_chains.run(steps, plan, record, on_gpu=plan.accounted)
        return reassign_frees(steps, keep) if steps != before else steps

    # A loop's sub-plan is specialised again by the loop runner (loop_specialise.py),
    # which fuses regions anew once its identities are gone. On a virtual GPU, where
    # every value TF's GPU graph makes is counted, a region's are not yet (its values
    # are read twice: no replay of a chain's charges accounts them); a chain's are
    # (runtime/chain_accounting.py).
    plan.fuses_regions = elementwise_chains.NAME in enabled and not plan.accounted
    if shape_folding.NAME in enabled:
        steps = specialise.wrap(steps, plan, feed_tensors, finish, rewrites)
    else:
        steps = finish(steps)
    plan.rewrites = rewrites
    return steps


def rewrites_of(session, fetches, fed=()):
    """What the optimizer did to the plan that `session.run(fetches, {t: ...})` runs,
    `fetches` a list of tensors and operations (a training op is a target, as in
    `sess.run([train, loss])`) and `fed` the fed tensors in the feed_dict's order: a list
    of `Rewrite(pass_name, nodes, result)` (builds the plan; runs nothing). Once the
    plan has run with fed shapes, its shape specialiser's rewrites for the latest
    signature replace its general `shape_specialisation` line (as %%tfgraph --optimized
    shows them); the loops of the plan that have run add what their bodies hoisted
    (runtime/loop_hoisting.py), what their shape specialisation folded, read through and
    fused (loop_specialise.py) and the regions their bodies fused (elementwise_regions).
    A plan the optimizer left as built (placed on a GPU, or with tf.cond / while_loop
    ops at its top level) gives first a `Rewrite("not_optimized", (), "not optimized:
    <why>")`."""
    from tfteach.framework.operation import Operation
    from tfteach.runtime import loop_hoisting
    if not isinstance(fetches, (list, tuple)):
        fetches = [fetches]                     # one fetch, as sess.run takes it
    tensors = tuple(f for f in fetches if not isinstance(f, Operation))
    targets = tuple(f for f in fetches if isinstance(f, Operation))
    plan = session._plan(tensors, tuple(fed), targets)
    rewrites = list(getattr(plan, "rewrites", ()))
    specialiser = getattr(plan, "specialiser", None)
    if specialiser is not None and specialiser.rewrites:
        # once an untraced run has fed shapes: what the latest signature folded and
        # fused, in place of the plan's one line "folded for each fed-shape signature"
        # (its chains fused again on the specialised steps: those replace the plan's)
        rewrites = [r for r in rewrites
                    if r.pass_name not in ("shape_specialisation", "elementwise_chains",
                                           "elementwise_regions")]
        rewrites += list(specialiser.rewrites.values())[-1]
    because = getattr(plan, "unoptimized_because", None)
    if because:     # no node to mark: the views show it as a note
        rewrites.insert(0, Rewrite(NOT_OPTIMIZED, (), "not optimized: " + because))
    from tfteach.runtime.loop_specialise import loop_body_rewrites_in
    return (rewrites + loop_hoisting.rewrites_in(session, plan.ops)
            + loop_body_rewrites_in(session, plan.ops))
