"""The lab extension's kernel channel (tfteach/notebook/lab_channel.py), asked exactly
as the "Devices & memory" panel asks: silent execute requests whose user_expressions
call snapshot() / release(), on a real "Python 3 (tfteach)" kernel (virtual GPU).
Expected figures are computed here from the sizes the cells allocate."""
import time

import pytest

from nb_kernel_helpers import MIB, install_kernelspec, kernel_environment
from tfteach.notebook import lab_channel

jupyter_client = pytest.importorskip("jupyter_client")

SNAPSHOT = "__import__('tfteach.notebook.lab_channel', fromlist=['_']).snapshot()"
RELEASE = "__import__('tfteach.notebook.lab_channel', fromlist=['_']).release()"
N = 262144                      # float32 elements: 1 MiB


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    prefix = str(tmp_path_factory.mktemp("kernel-prefix"))
    install_kernelspec(prefix)
    with kernel_environment(prefix):
        km, kc = jupyter_client.manager.start_new_kernel(kernel_name="tfteach",
                                                          startup_timeout=120)
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc, code):
    reply = kc.execute_interactive(code, timeout=120, output_hook=lambda msg: None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply["content"]


def ask(kc, expression):
    """What the panel does: a silent request, the value as application/json."""
    msg_id = kc.execute("", silent=True, store_history=False,
                        user_expressions={"tfteach": expression})
    deadline = time.monotonic() + 60
    while True:     # skip replies to earlier requests (start_new_kernel's kernel_info)
        reply = kc.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    value = reply["content"]["user_expressions"]["tfteach"]
    assert value["status"] == "ok", value
    return reply["content"]["execution_count"], value["data"]["application/json"]


def gpu(data):
    [row] = [d for d in data["devices"] if d["name"] == "GPU:0"]
    return row


def test_snapshot_before_any_gpu_work(kernel):
    _, data = ask(kernel, SNAPSHOT)
    assert data["version"] == 1 and data["extension_loaded"] is True
    assert data["devices"][0] == {"name": "CPU:0", "type": "CPU", "virtual": False}
    row = gpu(data)
    assert row["virtual"] is True and row["in_use"] == 0
    assert row["total"] == 2048 * MIB            # the virtual GPU's default size (docs/kernel.md)
    assert data["cells"] == [] and data["released"] is None


def test_snapshot_after_a_cell_and_soft_release(kernel):
    run(kernel, "import numpy as np\nimport tfteach as tf\n"
                "from tfteach.notebook.cell_memory import skip_release_for_this_cell")
    content = run(kernel,
                  "x = tf.placeholder(tf.float32, [%d])\n"
                  "with tf.device('/gpu:0'):\n    v = tf.Variable(x)\n"
                  "sess = tf.Session()\n"
                  "sess.run(v.initializer, {x: np.ones(%d, np.float32)})\n"
                  "skip_release_for_this_cell()" % (N, N))
    cell = content["execution_count"]
    count, data = ask(kernel, SNAPSHOT)
    row = gpu(data)
    assert row["in_use"] == 4 * N                 # the variable, 1 MiB
    assert row["reserved"] > 1024 * MIB           # TF's greedy default reservation, kept
    assert row["limit"] == row["reserved"]
    last = data["cells"][-1]
    assert last["cell"] == cell and last["device"] == "GPU:0" and last["skipped"] is True
    assert last["peak"] >= 4 * N and last["in_use_after"] == 4 * N
    assert last["holders"] == [["sess", 4 * N]]
    # asking ran no cell: no history entry, no new record, the count did not move
    assert count == cell
    _, again = ask(kernel, SNAPSHOT)
    assert again["cells"] == data["cells"]

    _, after = ask(kernel, RELEASE)
    [rec] = after["released"]
    row_after = gpu(after)
    assert rec["released"] == row["reserved"] - row_after["reserved"] > 0
    assert row_after["in_use"] == 4 * N           # the open session keeps its variable
    assert row_after["reserved"] < row["reserved"]
    assert after["cells"][-1]["released"] == rec["released"]
    assert after["cells"][-1]["by"] == "release button"
    assert run(kernel, "1")["execution_count"] == cell + 1


def test_json_value_formats_as_application_json():
    from IPython.core.formatters import DisplayFormatter
    data, _ = DisplayFormatter().format(lab_channel.JSONValue({"a": [1, "<b>"]}))
    assert data["application/json"] == {"a": [1, "<b>"]}
    assert "text/plain" in data
