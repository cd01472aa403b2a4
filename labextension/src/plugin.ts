// The front-end plugin: the "Devices & memory" panel in the right sidebar, and a command
// to show it. (The graph renderer is the separate MIME extension, mime.ts.)
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';

import { MemoryPanel } from './panel';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'tfteach:memory-panel',
  description: "Devices & memory of the active notebook's tfteach kernel",
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker) => {
    const panel = new MemoryPanel(tracker);
    app.shell.add(panel, 'right', { rank: 900 });
    app.commands.addCommand('tfteach:show-memory-panel', {
      label: 'tfteach: Show Devices & memory',
      execute: () => app.shell.activateById(panel.id)
    });
  }
};

export default plugin;
