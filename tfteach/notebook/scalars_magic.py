"""`%tfscalars LOGDIR [TAG...]`: TensorBoard's scalar charts drawn inline with matplotlib,
for notebooks where no TensorBoard server can be reached (docs/tensorboard.md).

It reads the event files under LOGDIR itself (io/records.py), as TensorBoard does: each
directory holding `events.out.tfevents.*` files is a run (LOGDIR itself is run "."),
every `simple_value` (and scalar tensor of the scalars plugin) is a point (step, value)
of its tag. TAGs may be shell patterns (`train/*`); none means every tag. One chart per
tag, one line per run, like TensorBoard's Scalars tab.
"""
import fnmatch
import glob
import os
import shlex

from tfteach.io.records import read_records
from tfteach.io.tf_protos import Event

__all__ = ["read_scalars", "plot_scalars", "tfscalars", "register", "unregister"]


def _event_files(logdir):
    runs = {}
    for root, _, files in os.walk(logdir):
        events = sorted(f for f in files if "tfevents" in f)
        if events:
            run = os.path.relpath(root, logdir)
            runs[run] = [os.path.join(root, f) for f in events]
    return runs


def _scalar_of(value):
    if value.HasField("simple_value"):
        return value.simple_value
    if value.HasField("tensor") and value.metadata.plugin_data.plugin_name == "scalars":
        from tfteach.framework.tensor_proto import make_ndarray
        return float(make_ndarray(value.tensor))
    return None


def read_scalars(logdir, tags=None):
    """{run: {tag: [(step, value), ...]}} from the event files under `logdir`, points
    sorted by step (a later point for the same step wins, as after a restart)."""
    if not os.path.isdir(logdir):
        raise FileNotFoundError("No such log directory: %s" % logdir)
    result = {}
    for run, files in sorted(_event_files(logdir).items()):
        points = {}
        for path in files:
            with open(path, "rb") as f:
                raw = f.read()
            for record in read_records(raw):
                event = Event.FromString(record)
                for value in event.summary.value:
                    if tags and not any(fnmatch.fnmatchcase(value.tag, t) for t in tags):
                        continue
                    scalar = _scalar_of(value)
                    if scalar is not None:
                        points.setdefault(value.tag, {})[event.step] = scalar
        if points:
            result[run] = {tag: sorted(by_step.items()) for tag, by_step in points.items()}
    return result


def plot_scalars(logdir, tags=None, smoothing=0.0):
    """A matplotlib Figure: one chart per tag, one line per run (None if no scalars)."""
    import matplotlib.pyplot as plt
    data = read_scalars(logdir, tags)
    all_tags = sorted({tag for run in data.values() for tag in run})
    if not all_tags:
        return None
    cols = min(3, len(all_tags))
    rows = (len(all_tags) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.0 * rows), squeeze=False)
    for ax, tag in zip(axes.ravel(), all_tags):
        for run, tags_of_run in data.items():
            if tag in tags_of_run:
                steps, values = zip(*tags_of_run[tag])
                ax.plot(steps, _smooth(values, smoothing), label=run, linewidth=1.5)
        ax.set_title(tag, fontsize=10)
        ax.set_xlabel("step")
        ax.grid(alpha=0.3)
        if len(data) > 1:
            ax.legend(fontsize=8)
    for ax in axes.ravel()[len(all_tags):]:
        ax.set_visible(False)
    fig.tight_layout()
    plt.close(fig)                        # shown by display(), not again by the backend
    return fig


def _smooth(values, weight):
    """TensorBoard's exponential moving average smoothing (0 = none)."""
    if not weight:
        return list(values)
    out, last = [], values[0]
    for v in values:
        last = last * weight + (1 - weight) * v
        out.append(last)
    return out


def tfscalars(line):
    """The `%tfscalars LOGDIR [TAG...]` magic (also callable directly)."""
    args = shlex.split(line)
    if not args:
        print("Usage: %tfscalars LOGDIR [TAG...]   (TAGs may be patterns like 'train/*')")
        return None
    logdir, tags = os.path.expanduser(args[0]), args[1:] or None
    try:
        fig = plot_scalars(logdir, tags)
    except FileNotFoundError as e:
        print(e)
        return None
    if fig is None:
        found = glob.glob(os.path.join(logdir, "**", "*tfevents*"), recursive=True)
        print("No scalar summaries%s in %s (%d event files)."
              % (" matching " + " ".join(tags) if tags else "", logdir, len(found)))
        return None
    from IPython.display import display
    display(fig)
    return None


def register(ipython):
    ipython.register_magic_function(tfscalars, magic_kind="line", magic_name="tfscalars")


def unregister(ipython):
    ipython.magics_manager.magics["line"].pop("tfscalars", None)
