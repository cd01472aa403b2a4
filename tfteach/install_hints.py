"""One-line "install X" messages for the pieces a teaching set-up needs (docs/install.md).

The base install brings the kernel's own dependencies (ipykernel, ipywidgets, the
graphviz bindings); JupyterLab comes with the `lab` extra and Graphviz's `dot` program
from the system. Whatever is still missing is named in one line saying how to install
it, instead of a traceback ending in ModuleNotFoundError.
"""
import importlib

__all__ = ["PIP_HINTS", "DOT_HINT", "require", "missing_message"]

# import name -> what to run
PIP_HINTS = {
    "ipykernel": "pip install ipykernel",
    "jupyter_client": "pip install jupyter_client",
    "ipywidgets": "pip install ipywidgets",
    "IPython": "pip install ipython",
    "jupyterlab": 'pip install "tfteach[lab]"',
    "nbclient": "pip install nbclient",
    "nbformat": "pip install nbformat",
    "psutil": "pip install psutil",
}

DOT_HINT = ("Graphviz's dot program is not installed; for the graph pictures install the "
            "graphviz system package (apt-get install graphviz, conda install -c conda-forge "
            "graphviz, or brew install graphviz)")


def missing_message(module, purpose):
    """'<purpose> needs <module>, which is not installed: <command>'."""
    top = module.split(".")[0]
    return "%s needs %s, which is not installed: %s" % (
        purpose, top, PIP_HINTS.get(top, "pip install " + top))


def require(module, purpose):
    """Imports `module`; when it (not one of its own imports) is missing, raises
    ModuleNotFoundError with the one-line message."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.split(".")[0]
        if e.name is None or e.name.split(".")[0] != top:
            raise                       # something it imports is broken: keep the real error
        raise ModuleNotFoundError(missing_message(module, purpose), name=top) from None
