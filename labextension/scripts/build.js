// Builds the prebuilt lab extension into ../tfteach/labextension with jupyter-builder.
// Why this script: JupyterLab 4.6 hands building to jupyter-builder, which otherwise tries
// to download @jupyterlab/core-meta for @jupyterlab/builder's 4.5.x (not on npm, and
// offline machines have no GitHub). `--core-package-file` points it at the installed lab's
// own static/package.json instead: offline, and the shared versions match that lab.
// The Python that runs jupyter-builder must have jupyterlab: JUPYTERLAB_PYTHON (the
// Makefile sets it to the venv's), else the first of python3/python on PATH that does.
const { execFileSync } = require('child_process');

function findPython() {
  const candidates = [process.env.JUPYTERLAB_PYTHON, 'python3', 'python'].filter(Boolean);
  for (const exe of candidates) {
    try {
      execFileSync(exe, ['-c', 'import jupyterlab, jupyter_builder'], { stdio: 'ignore' });
      return exe;
    } catch (err) {
      // not this one
    }
  }
  throw new Error('No Python with jupyterlab (>= 4.6, which brings jupyter-builder) found: ' +
    'set JUPYTERLAB_PYTHON to one (tried ' + candidates.join(', ') + ')');
}

const python = findPython();
const corePackage = execFileSync(python, ['-c',
  'import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), "static", "package.json"))'],
  { encoding: 'utf8' }).trim();
const args = ['-m', 'jupyter_builder.extension_commands.build',
  '--core-package-file', corePackage];
if (process.argv.includes('--development')) {
  args.push('--development');
}
args.push('.');
execFileSync(python, args, { stdio: 'inherit' });
