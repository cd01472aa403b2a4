"""Real notebooks on the real "Python 3 (tfteach)" kernel, for the notebook-memory tests.

`installed_kernelspec(tmp)` installs the kernelspec into a temporary prefix with
`python -m tfteach.kernel install --prefix` and puts that prefix first on JUPYTER_PATH,
so the tests use the kernelspec this checkout writes (not whatever an earlier `make
test` left in the venv) and write nothing outside the temporary folder. The kernel
inherits this process's environment: PYTHONPATH (this checkout) and conftest's
NUMBA_ENABLE_CUDASIM=1, so Numba sees no real GPU there.

`tfteach_kernel` is that as a module-scoped fixture: the kernel name, with the
environment in place while the module's tests run.

`NotebookKernel` keeps one kernel running and appends each cell to one notebook, so a
test file pays for `import nbformat` and a kernel start once.
"""
import contextlib
import json
import os
import subprocess
import sys

import pytest

MIB = 1 << 20


def install_kernelspec(prefix, *args):
    subprocess.run([sys.executable, "-m", "tfteach.kernel", "install", "--prefix", prefix,
                    *args], check=True, capture_output=True, text=True)
    return os.path.join(prefix, "share", "jupyter", "kernels", "tfteach")


@contextlib.contextmanager
def kernel_environment(prefix):
    """JUPYTER_PATH with `prefix` first; no virtual-GPU request in the environment (the
    kernelspec's own env decides)."""
    saved = {k: os.environ.get(k) for k in ("JUPYTER_PATH", "TFTEACH_VIRTUAL_GPUS",
                                            "TFTEACH_VIRTUAL_GPUS_IF_NO_GPU")}
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        p for p in (os.path.join(prefix, "share", "jupyter"), saved["JUPYTER_PATH"]) if p)
    os.environ.pop("TFTEACH_VIRTUAL_GPUS", None)
    os.environ.pop("TFTEACH_VIRTUAL_GPUS_IF_NO_GPU", None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class NotebookKernel:
    """One notebook, one running kernel: `run(code)` executes a new cell, returns it."""

    def __init__(self, kernel_name="tfteach", timeout=120):
        import nbformat
        from nbclient import NotebookClient
        self.nbformat = nbformat
        self.nb = nbformat.v4.new_notebook()
        self.client = NotebookClient(self.nb, kernel_name=kernel_name, timeout=timeout,
                                     allow_errors=True)
        self._cm = None

    def __enter__(self):
        self._cm = self.client.setup_kernel()
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    def run(self, code):
        cell = self.nbformat.v4.new_code_cell(code)
        self.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.nb.cells) - 1)
        return cell

    def value(self, expression):
        """The JSON value of `expression` evaluated in the kernel (a cell that prints it)."""
        cell = self.run("import json as _json\nprint(_json.dumps(%s))" % expression)
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, "\n".join(errors[0].traceback)
        return json.loads(stream_text(cell).strip().splitlines()[-1])

    def stats(self):
        return self.value("{k: v for k, v in __import__('tfteach').config.memory_stats("
                          "'/gpu:0').items() if isinstance(v, (int, bool))}")


def stream_text(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def mime(cell, kind):
    """Every `kind` (e.g. 'text/plain') of the cell's display and result outputs."""
    return [o["data"][kind] for o in cell.outputs
            if o.output_type in ("display_data", "execute_result") and kind in o["data"]]


def error_output(cell):
    errors = [o for o in cell.outputs if o.output_type == "error"]
    return errors[0] if errors else None


def traceback_text(cell):
    """The cell's error traceback as plain text (ANSI colours removed)."""
    import re
    err = error_output(cell)
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(err["traceback"])) if err else ""


@pytest.fixture(scope="module")
def tfteach_kernel(tmp_path_factory):
    """The "Python 3 (tfteach)" kernelspec of this checkout, installed in a temporary
    prefix that JUPYTER_PATH puts first."""
    prefix = str(tmp_path_factory.mktemp("kernelspec"))
    install_kernelspec(prefix)
    with kernel_environment(prefix):
        yield "tfteach"
