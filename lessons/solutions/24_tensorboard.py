# Solutions of lessons/24_tensorboard.ipynb (tests/test_lessons.py runs them in place of the
# exercise cells; a teacher can paste a section into the student's cell).

# %% ex24_1
from tfteach.notebook.scalars_magic import read_scalars
points = read_scalars("logs/mnist")["test"]["accuracy_1"]
answer = (points[-1][0], len(points))

# %% ex24_2
answer = sorted(tag for tag in train_log.Tags()["histograms"] if tag.startswith("layer2/"))

# %% ex24_3
answer = sorted(set(node.name.split("/")[0] for node in graph_def.node if "/" in node.name))
