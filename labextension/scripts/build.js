// Builds the prebuilt lab extension into ../tfteach/labextension with jupyter-builder.
// Why this script: JupyterLab 4.6 hands building to jupyter-builder, which otherwise tries
// to download @jupyterlab/core-meta for @jupyterlab/builder's 4.5.x (not on npm, and
// offline machines have no GitHub). `--core-package-file` points it at the installed lab's
// own static/package.json instead: offline, and the shared versions match that lab.
// PYTHON (default `python3`) must be the environment that has jupyterlab.
const { execFileSync } = require('child_process');

const python = process.env.PYTHON || 'python3';
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
