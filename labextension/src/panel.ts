// The "Devices & memory" side panel: the active notebook's kernel's devices and the last
// cells' peaks, refreshed after every cell, with a "Release GPU memory" button.
// The channel (docs/labextension.md): a silent execute request whose user_expressions
// call tfteach.notebook.lab_channel; silent requests run no cell hooks and leave no
// history, so asking does not change the figures it reads.
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { el } from './dom';
import { CELL_HEADERS, DEVICE_HEADERS, RELEASE_EXPR, SNAPSHOT_EXPR, Snapshot, cellRows, deviceRows, parseReply, releaseText } from './memory';

function table(headers: string[], rows: string[][], cls: string): HTMLElement {
  // scrolls sideways inside a narrow sidebar instead of overflowing it
  const wrap = el('div', 'tft-table-wrap');
  const t = el('table', `tft-table ${cls}`);
  wrap.append(t);
  const head = el('tr');
  headers.forEach(h => head.append(el('th', undefined, h)));
  t.append(head);
  for (const row of rows) {
    const tr = el('tr');
    row.forEach(c => tr.append(el('td', undefined, c)));
    t.append(tr);
  }
  return wrap;
}

export class MemoryPanel extends Widget {
  private header = el('div', 'tft-panel-header');
  private content = el('div', 'tft-panel-content');
  private message = el('div', 'tft-panel-message');
  private releaseButton = el('button', 'tft-button tft-release', 'Release GPU memory');
  private refreshButton = el('button', 'tft-button tft-refresh', 'Refresh');
  private generation = 0;

  constructor(private tracker: INotebookTracker) {
    super();
    this.id = 'tfteach-memory-panel';
    this.title.label = 'Devices & memory';
    this.title.caption = 'tfteach: devices and memory of the active notebook\'s kernel';
    this.addClass('tft-panel');
    this.releaseButton.title = 'Close sessions nothing uses and give idle GPU reservations back (%tfrelease)';
    this.releaseButton.addEventListener('click', () => void this.ask(RELEASE_EXPR));
    this.refreshButton.addEventListener('click', () => void this.refresh());
    const buttons = el('div', 'tft-panel-buttons');
    buttons.append(this.releaseButton, this.refreshButton);
    this.node.append(el('h3', undefined, 'Devices & memory'), this.header, buttons, this.message, this.content);
    tracker.currentChanged.connect(this.onCurrentChanged, this);
    NotebookActions.executed.connect((_, args) => {
      if (args.notebook === this.tracker.currentWidget?.content) {
        void this.refresh();
      }
    });
    this.onCurrentChanged();
  }

  private onCurrentChanged(): void {
    const panel = this.tracker.currentWidget;
    if (panel) {
      panel.sessionContext.kernelChanged.connect(this.onKernelChanged, this);
      void panel.sessionContext.ready.then(() => this.refresh());
    }
    void this.refresh();
  }

  private onKernelChanged(): void {
    void this.refresh();
  }

  refresh(): Promise<void> {
    return this.ask(SNAPSHOT_EXPR);
  }

  /** Sends one silent request and shows its answer (the latest request wins). */
  private async ask(expression: string): Promise<void> {
    const generation = ++this.generation;
    const panel: NotebookPanel | null = this.tracker.currentWidget;
    const kernel = panel?.sessionContext.session?.kernel;
    this.header.textContent = panel
      ? `${panel.title.label} — ${panel.sessionContext.kernelDisplayName}`
      : 'No notebook is active.';
    if (!kernel) {
      this.display(null, panel ? 'No kernel running.' : '');
      return;
    }
    this.releaseButton.disabled = true;
    try {
      const future = kernel.requestExecute({
        code: '',
        silent: true,
        store_history: false,
        user_expressions: { tfteach: expression },
        allow_stdin: false,
        stop_on_error: false
      });
      const reply = await future.done;
      if (generation !== this.generation) {
        return;
      }
      const result = parseReply((reply.content as any).user_expressions?.tfteach);
      if (result.error) {
        this.display(null, result.error);
      } else {
        const s = result.snapshot!;
        this.display(s, s.released ? releaseText(s) : s.extension_loaded ? '' : 'The tfteach extension is not loaded in this kernel (%load_ext tfteach): no per-cell figures.');
      }
    } catch (err) {
      if (generation === this.generation) {
        this.display(null, `Could not ask the kernel: ${String(err)}`);
      }
    } finally {
      this.releaseButton.disabled = false;
    }
  }

  private display(s: Snapshot | null, message: string): void {
    this.message.textContent = message;
    this.content.replaceChildren();
    if (!s) {
      return;
    }
    this.content.append(el('h4', undefined, 'Devices'), table(DEVICE_HEADERS, deviceRows(s), 'tft-devices'));
    const cells = cellRows(s);
    this.content.append(el('h4', undefined, 'Last cells that touched a GPU'));
    this.content.append(cells.length ? table(CELL_HEADERS, cells, 'tft-cells') : el('p', undefined, 'None yet.'));
  }
}
