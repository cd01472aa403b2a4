"""Per-student sizing for a hub: each lesson's kernel memory and CPU time (docs/classroom.md).

    python scripts/measure_lessons.py [--kernel tfteach] [--examples] [--server] [--markdown]
                                      [LESSON...]

Runs each lesson (default: every lessons/NN_*.ipynb) with its exercises solved, in a fresh
kernel of its own, as a student would, and reads the kernel process with psutil:
- RSS after the last cell (what the student's kernel holds while they keep working),
- peak RSS (the kernel's high-water mark, VmHWM; on other systems the largest RSS seen
  after a cell), which is what a hub's memory limit must allow,
- CPU seconds (user + system, the kernel and its children) and wall seconds.
`--examples` adds two notebooks built here: `baseline` (an idle tfteach kernel) and
`mnist_training` (the notes' best-practice MNIST MLP and a small LeNet-5, trained on the
shared 10,000-image test set; needs TFTEACH_DATA), the representative training load.
`--server` adds the RSS of an idle `jupyter lab` (each student's server, besides kernels).
Prints a table (Markdown with --markdown); exit status 1 when a lesson had a problem.
Needs nbclient, nbformat, psutil (the test extra has them).
"""
import argparse
import glob
import os
import sys
import time

import nbformat
import psutil

from lesson_runner import ROOT, execute, problems

MIB = 1 << 20

MNIST_TRAINING = [
    """import time, numpy as np
import tfteach as tf
from tfteach.datasets import mnist
images, labels = mnist.load("t10k")
x_all = images.reshape(-1, 784).astype(np.float32) / 255.0
y_all = mnist.one_hot(labels).astype(np.float32)
x_train, y_train, x_test, y_test = x_all[:8000], y_all[:8000], x_all[8000:], y_all[8000:]""",
    # the notes' best-practice MLP: 784-500-10, L2 through a collection, decayed rate,
    # moving averages of the weights
    """tf.reset_default_graph()
x = tf.placeholder(tf.float32, [None, 784]); y_ = tf.placeholder(tf.float32, [None, 10])
reg = tf.contrib.layers.l2_regularizer(1e-4)
def layer(inp, n_in, n_out, name, act=None):
    with tf.variable_scope(name):
        w = tf.get_variable("w", [n_in, n_out], initializer=tf.truncated_normal_initializer(stddev=0.1))
        tf.add_to_collection("losses", reg(w))
        b = tf.get_variable("b", [n_out], initializer=tf.constant_initializer(0.1))
        out = tf.matmul(inp, w) + b
        return act(out) if act else out
y = layer(layer(x, 784, 500, "layer1", tf.nn.relu), 500, 10, "layer2")
step = tf.Variable(0, trainable=False)
ema = tf.train.ExponentialMovingAverage(0.99, step)
ema_op = ema.apply(tf.trainable_variables())
xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.argmax(y_, 1), logits=y))
loss = xent + tf.add_n(tf.get_collection("losses"))
lr = tf.train.exponential_decay(0.8, step, 80, 0.99)
train = tf.group(tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step), ema_op)
acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)), tf.float32))
sess = tf.Session(); sess.run(tf.global_variables_initializer())
t = time.time()
for i in range(1000):
    k = (i * 100) % 8000
    sess.run(train, {x: x_train[k:k + 100], y_: y_train[k:k + 100]})
print("MLP: 1000 steps in %.1f s, test accuracy %.3f" % (time.time() - t, sess.run(acc, {x: x_test, y_: y_test})))""",
    # LeNet-5 (the notes' conv chapter), a few steps
    """tf.reset_default_graph()
xi = tf.placeholder(tf.float32, [None, 28, 28, 1]); yl = tf.placeholder(tf.int64, [None])
def conv(inp, k, c_in, c_out, name):
    with tf.variable_scope(name):
        w = tf.get_variable("w", [k, k, c_in, c_out], initializer=tf.truncated_normal_initializer(stddev=0.1))
        b = tf.get_variable("b", [c_out], initializer=tf.constant_initializer(0.0))
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(inp, w, [1, 1, 1, 1], "SAME"), b))
p1 = tf.nn.max_pool(conv(xi, 5, 1, 32, "c1"), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
p2 = tf.nn.max_pool(conv(p1, 5, 32, 64, "c2"), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
flat = tf.reshape(p2, [-1, 7 * 7 * 64])
fc = tf.layers.dense(flat, 512, activation=tf.nn.relu)
logits = tf.layers.dense(fc, 10)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=yl, logits=logits))
train = tf.train.AdamOptimizer(1e-3).minimize(loss)
sess2 = tf.Session(); sess2.run(tf.global_variables_initializer())
xs = x_train.reshape(-1, 28, 28, 1); ys = np.argmax(y_train, 1)
t = time.time()
for i in range(100):
    k = (i * 50) % 8000
    sess2.run(train, {xi: xs[k:k + 50], yl: ys[k:k + 50]})
print("LeNet-5: 100 steps of 50 in %.1f s, loss %.3f" % (time.time() - t, sess2.run(loss, {xi: xs[:500], yl: ys[:500]})))""",
]


def example_notebooks():
    def notebook(sources):
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        return nb
    return {"baseline (idle tfteach kernel)": notebook(["import tfteach as tf"]),
            "mnist_training (example)": notebook(MNIST_TRAINING)}


def kernel_pid(client):
    provisioner = getattr(client.km, "provisioner", None)
    pid = getattr(provisioner, "pid", None) or getattr(getattr(provisioner, "process", None),
                                                       "pid", None)
    if pid is None:
        raise RuntimeError("cannot find the kernel's process id")
    return pid


def peak_rss(proc):
    try:
        with open("/proc/%d/status" % proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def measure(path, kernel, timeout, nb=None):
    """{rss, peak, cpu, wall, problems} for one lesson, in a fresh kernel."""
    seen = {"rss": 0, "max_rss": 0, "peak": None, "cpu": 0.0}

    def after_cell(client, index, cell):
        proc = psutil.Process(kernel_pid(client))
        with proc.oneshot():
            rss = proc.memory_info().rss
            times = proc.cpu_times()
        seen["rss"] = rss
        seen["max_rss"] = max(seen["max_rss"], rss)
        seen["peak"] = peak_rss(proc)
        seen["cpu"] = times.user + times.system + times.children_user + times.children_system

    start = time.perf_counter()
    executed = execute(path, kernel, timeout, after_cell=after_cell, nb=nb)
    return {"rss": seen["rss"], "peak": seen["peak"] or seen["max_rss"], "cpu": seen["cpu"],
            "wall": time.perf_counter() - start, "problems": problems(executed)}


def server_rss(timeout=60):
    """RSS of an idle `jupyter lab` server (what each student's single-user server adds to
    the kernels), started on a free port with no browser and stopped again."""
    import socket
    import subprocess
    import tempfile
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    with tempfile.TemporaryDirectory() as root:
        proc = subprocess.Popen([jupyter, "lab", "--no-browser", "--port", str(port),
                                 "--ServerApp.root_dir=" + root, "--ServerApp.token=",
                                 "--allow-root"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + timeout
            while time.time() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.5)
            time.sleep(3)                     # let it finish loading its extensions
            return psutil.Process(proc.pid).memory_info().rss
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("lessons", nargs="*")
    parser.add_argument("--kernel", default="tfteach")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--examples", action="store_true",
                        help="add the idle-kernel baseline and the MNIST training example")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--server", action="store_true",
                        help="also the RSS of an idle `jupyter lab` server")
    args = parser.parse_args(argv)
    lessons = args.lessons or sorted(glob.glob(os.path.join(ROOT, "lessons",
                                                            "[0-9][0-9]_*.ipynb")))
    jobs = [(os.path.basename(p), p, None) for p in lessons]
    if args.examples:
        jobs += [(name, os.path.join(ROOT, "lessons", "example.ipynb"), nb)
                 for name, nb in example_notebooks().items()]
    header = ("notebook", "RSS after (MiB)", "peak RSS (MiB)", "CPU (s)", "wall (s)", "ok")
    rows = []
    for name, path, nb in jobs:
        r = measure(path, args.kernel, args.timeout, nb=nb)
        rows.append((name, "%.0f" % (r["rss"] / MIB), "%.0f" % (r["peak"] / MIB),
                     "%.1f" % r["cpu"], "%.1f" % r["wall"],
                     "yes" if not r["problems"] else "; ".join(r["problems"])))
        print("  measured %s" % name, file=sys.stderr, flush=True)
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        for row in (header, *rows):
            print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    if args.server:
        print("idle jupyter lab server: %.0f MiB RSS" % (server_rss() / MIB))
    print("%s, %d CPUs, Python %s, psutil %s" % (sys.platform, os.cpu_count(),
                                                 sys.version.split()[0], psutil.__version__))
    return 1 if any(row[-1] != "yes" for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
