"""What the tfteach kernel's malloc settings change (tfteach/kernel, MALLOC_ENV).

    python bench/malloc_settings.py [--rounds 2] [--steps 15]

The notes' eager char-RNN (seed-inventory E25: a BasicLSTMCell(256) called once per
time step under a GradientTape, 40 steps of a batch of 50 one-hot characters, Adam),
one training step at a time, in child processes: tfteach and TensorFlow 2 (eager), each
with glibc's default malloc and with the kernel's MALLOC_ENV, alternating for `--rounds`
rounds. Prints each one's best and median ms a step and its minor page faults a step.
Page faults are what the settings remove: a step that frees tens of MiB gets them back
from the system as new pages, which the kernel zeroes at their first touch.
"""
import argparse
import os
import sys

from _common import child_json  # (bench/ is sys.path[0] when run as a script)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

STEP = r'''
import json, os, resource, statistics, sys, time
import numpy as np
which, steps = sys.argv[1], int(sys.argv[2])
if which == "tf":
    import tensorflow as tf
    v1 = tf.compat.v1
else:
    sys.path.insert(0, sys.argv[3])
    import tfteach.v2 as tf
    import tfteach as v1
rng = np.random.RandomState(0)
batch, time_steps, chars, units = 50, 40, 60, 256
x = rng.randint(0, chars, (batch, time_steps))
y = rng.randint(0, chars, (batch,))
cell = v1.nn.rnn_cell.BasicLSTMCell(num_units=units)
dense = tf.keras.layers.Dense(units=chars)
optimizer = v1.train.AdamOptimizer(1e-3)


def step():
    inputs = tf.one_hot(x, depth=chars)
    with tf.GradientTape() as tape:
        state = cell.zero_state(batch_size=batch, dtype=tf.float32)
        for t in range(time_steps):
            output, state = cell(inputs[:, t, :], state)
        logits = dense(output)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))
    variables = cell.variables + dense.variables
    optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))


for _ in range(3):
    step()
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
times = []
for _ in range(steps):
    start = time.perf_counter()
    step()
    times.append(time.perf_counter() - start)
faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / steps
print(json.dumps([min(times) * 1e3, statistics.median(times) * 1e3, faults]))
'''


def run(which, settings, steps):
    from tfteach.kernel import MALLOC_ENV
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
               CUDA_VISIBLE_DEVICES="")
    for name in MALLOC_ENV:
        env.pop(name, None)
    if settings:
        env.update(MALLOC_ENV)
    return child_json(STEP, (which, str(steps), ROOT), env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    print("The notes' eager char-RNN step, ms best / median, minor page faults a step")
    rows = [("tfteach", False), ("tfteach", True), ("tf", False), ("tf", True)]
    for _ in range(args.rounds):
        for which, settings in rows:
            got = run(which, settings, args.steps)
            label = "%-8s %-24s" % (which, "kernel's MALLOC_ENV" if settings else
                                    "glibc's defaults")
            if got is None:
                print(label, "-" if which == "tf" else "failed")
            else:
                print(label, "%7.1f / %7.1f ms %9.0f faults" % tuple(got))


if __name__ == "__main__":
    main()
