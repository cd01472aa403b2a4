"""A notebook on the tfteach kernel gives its GPU memory back after each cell, as the
driver sees it (NVML, what nvidia-smi shows).

Executes a small notebook with nbclient on the installed "tfteach" kernel: a session
that trains and stays open, runs again, is closed; a session in a `with` block; a
1 GiB variable in an InteractiveSession, then closed. After every cell it reads, through
NVML, the GPU memory the kernel's process holds, and checks it against what the cell
left alive: only the chunks holding an open session's buffers (kernels/cuda/
memory_manager.py), nothing once the sessions are closed. Prints a table (MiB) and
writes it as JSON. On a machine without NVML or without a GPU the notebook still runs
(on the kernel's virtual GPU) and only the measurements are skipped.

    python scripts/gpu_notebook_check.py [--json OUT.json] [--timeout 300]
"""
import argparse
import json
import sys

import nbformat
from nbclient import NotebookClient

MIB = 1 << 20
MARK = "TFTEACH_CHECK "
CODE = 256          # MiB: the kernels' code loaded onto the card stays

CELLS = [
    # 0: the devices (a real card makes its CUDA context here: the baseline)
    """import json
import numpy as np
import tfteach as tf
from tfteach.runtime import devices
gpu = [d for d in devices.local_devices() if d.device_type == "GPU"][0]
print(gpu.kind, gpu.description)""",
    # 1: an MLP trained with its session left open
    """rng = np.random.RandomState(0)
x = tf.placeholder(tf.float32, [None, 784])
y = tf.placeholder(tf.float32, [None, 10])
w1 = tf.Variable(tf.truncated_normal([784, 500], stddev=0.1))
b1 = tf.Variable(tf.zeros([500]))
w2 = tf.Variable(tf.truncated_normal([500, 10], stddev=0.1))
logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
train = tf.train.AdamOptimizer(1e-3).minimize(loss)
feed = {x: rng.rand(100, 784).astype(np.float32),
        y: np.eye(10, dtype=np.float32)[rng.randint(0, 10, 100)]}
sess = tf.Session()
sess.run(tf.global_variables_initializer())
losses = [sess.run([loss, train], feed)[0] for _ in range(50)]
stats = tf.config.memory_stats("/gpu:0")
print("%s%s" % (__MARK__, json.dumps({"reserved_mib": stats["bytes_reserved"] / 2**20,
                                      "first_loss": float(losses[0]),
                                      "last_loss": float(losses[-1])})))
assert losses[-1] < losses[0]""",
    # 2: the open session runs again after the release
    """print(sess.run(loss, feed))""",
    # 3: closed: everything goes back
    """sess.close()""",
    # 4: a session in a with block (a 64 MiB product)
    """with tf.Session() as s:
    print(s.run(tf.reduce_sum(tf.matmul(tf.ones([4096, 4096]), tf.ones([4096, 4096])))))""",
    # 5: a 1 GiB variable on a card (bigger than a chunk) held by an InteractiveSession
    """n = 256 if gpu.kind == "cuda" else 64     # a virtual GPU has 2 GiB
big = tf.Variable(tf.random_uniform([n, 1024, 1024]), name="big")
isess = tf.InteractiveSession()
big.initializer.run()
print(big.shape, tf.config.memory_stats("/gpu:0")["bytes_in_use"] / 2**20, "MiB in use")""",
    # 6: closed
    """isess.close()""",
]


class NvmlProbe:
    """The GPU memory a process holds (and the card's total used), through NVML."""

    def __init__(self):
        self.error = None
        try:
            import pynvml
            pynvml.nvmlInit()
            if pynvml.nvmlDeviceGetCount() < 1:
                raise RuntimeError("NVML sees no GPU")
            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as e:  # noqa: BLE001 - no NVML, no driver, no card
            self.nvml, self.error = None, "%s: %s" % (type(e).__name__, e)

    def read(self, pid):
        if self.nvml is None:
            return None
        used = self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used / MIB
        by_pid = {p.pid: (p.usedGpuMemory or 0) / MIB for p in
                  self.nvml.nvmlDeviceGetComputeRunningProcesses(self.handle)}
        return {"card_used": used, "process": by_pid.get(pid)}


def cell_source(index):
    return CELLS[index].replace("__MARK__", repr(MARK))


def run(timeout):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(cell_source(i)) for i in range(len(CELLS))]
    probe = NvmlProbe()
    rows = []
    client = NotebookClient(nb, kernel_name="tfteach", timeout=timeout,
                            allow_errors=False)

    def after_cell(cell, cell_index, execute_reply):
        pid = client.km.provisioner.process.pid
        # print()s are streams; the kernel's memory line is a display (text/plain)
        text = "\n".join(o.get("text", "") or o.get("data", {}).get("text/plain", "")
                         for o in cell.get("outputs", []))
        marks = [json.loads(line[len(MARK):]) for line in text.splitlines()
                 if line.startswith(MARK)]
        report = [line for line in text.splitlines() if "GPU:" in line and "MiB" in line]
        rows.append({"cell": cell_index, "nvml": probe.read(pid),
                     "in_cell": marks[0] if marks else None, "kernel_says": report})

    client.on_cell_executed = after_cell
    with client.setup_kernel():
        pid = client.km.provisioner.process.pid
        rows.append({"cell": "start", "nvml": probe.read(pid), "in_cell": None,
                     "kernel_says": []})
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
    return rows, probe


def held(rows, cell, baseline):
    nvml = rows[cell + 1]["nvml"]             # rows[0] is the kernel's start
    value = nvml["process"] if nvml["process"] is not None else nvml["card_used"]
    return value - baseline


def check(rows):
    """The expectations on a real card; returns the failures. The baseline is the
    process after cell 0 (its CUDA context); the kernels' code that later cells load
    onto the card stays (up to CODE MiB), the reservation must not."""
    first = rows[1]["nvml"]
    baseline = first["process"] if first["process"] is not None else first["card_used"]
    failures = []
    in_cell = rows[2]["in_cell"] or {}
    if in_cell.get("reserved_mib", 0) < 1024:
        failures.append("cell 1 reserved only %s MiB" % in_cell.get("reserved_mib"))
    closed = held(rows, 3, baseline)
    expectations = [(1, 0, 2 * 256 + CODE, "session open: at most its chunks", 0),
                    (2, 0, 2 * 256 + CODE, "open session ran again", 0),
                    (3, 0, CODE, "session closed: all back", 0),
                    (4, -16, 64, "with-block session: all back", closed),
                    (5, 1024, 1024 + 2 * 256 + 64, "1 GiB variable held", closed),
                    (6, -16, 64, "InteractiveSession closed: all back", closed)]
    for cell, low, high, what, since in expectations:
        value = held(rows, cell, baseline) - since
        if not low <= value <= high:
            failures.append("cell %d (%s): %.0f MiB held, expected %d..%d MiB beyond %s"
                            % (cell, what, value, low, high,
                               "cell 3" if since else "cell 0"))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args()
    rows, probe = run(args.timeout)
    print("%-6s %14s %14s  %s" % ("cell", "process MiB", "card used MiB", "the kernel's line"))
    for row in rows:
        nvml = row["nvml"] or {}
        fmt = lambda v: "-" if v is None else "%.0f" % v  # noqa: E731
        print("%-6s %14s %14s  %s" % (row["cell"], fmt(nvml.get("process")),
                                      fmt(nvml.get("card_used")),
                                      " | ".join(row["kernel_says"])[:160]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "cells": CELLS}, f, indent=1)
    if probe.nvml is None:
        print("no NVML measurements (%s): the notebook ran; nothing to compare" % probe.error)
        return 0
    failures = check(rows)
    for failure in failures:
        print("FAILED:", failure)
    print("notebook memory check: %s" % ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
