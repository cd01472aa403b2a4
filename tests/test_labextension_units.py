"""The lab extension's front-end unit tests (labextension/test/*.test.ts, vitest), run
from pytest so `make test` runs them: JSON -> DOT, folding, escaping, details, the
memory panel's rows. They need the npm install `make` does (labextension/node_modules)."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABEXT = os.path.join(ROOT, "labextension")


@pytest.mark.skipif(shutil.which("npx") is None, reason="Node.js (npx) is not installed")
def test_vitest_suite_passes():
    vitest = os.path.join(LABEXT, "node_modules", ".bin", "vitest")
    if not os.path.exists(vitest):
        pytest.fail("labextension/node_modules is missing: run `make install` "
                    "(or `cd labextension && npm install`)")
    proc = subprocess.run([vitest, "run", "--reporter=verbose"], cwd=LABEXT, timeout=300,
                          capture_output=True, text=True, env={**os.environ, "CI": "1"})
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    assert proc.returncode == 0, out[-6000:]
    m = re.search(r"Tests\s+(\d+) passed", out)
    assert m and int(m.group(1)) >= 25, out[-3000:]     # the suite ran, not an empty one
    assert "failed" not in out.split("Test Files")[-1], out[-3000:]
