// The interactive graph output: one widget per `application/vnd.tfteach.graph+json`
// bundle. Graphviz (compiled to WebAssembly by @viz-js/viz) lays the DOT out in the
// browser; the widget adds the run selector, collapsing scopes, a step-through of the
// selected run (each step's values, copies between devices included), pan/zoom, a
// details pane and a device legend. All text comes from the kernel's export and is set
// as text. In JupyterLab this view replaces the kernel's ipywidgets controls (the run
// menu, the scope menu, previous/next), which style/index.css hides under it: one run
// selector, numbered from 1 as they are.
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { Row, boxDetails, rowsElement, stepDetails } from './details';
import { el } from './dom';
import { DotResult, FED_COLOR, RAN_COLOR, toDot } from './dot';
import { initialCollapse, scopesAtDepth } from './folding';
import { GraphExport, MIME_TYPE, validateExport } from './model';
import { PanZoom } from './panzoom';

type Viz = { renderSVGElement(dot: string): SVGSVGElement };
let vizPromise: Promise<Viz> | null = null;

/** One Graphviz instance per page, loaded on first use (the WASM chunk is ~1.3 MiB). */
function viz(): Promise<Viz> {
  if (!vizPromise) {
    vizPromise = import('@viz-js/viz').then(m => m.instance() as Promise<Viz>);
  }
  return vizPromise;
}


export class GraphView extends Widget implements IRenderMime.IRenderer {
  private exp: GraphExport | null = null;
  private runIndex: number | null = null;
  private step: number | null = null; // the step-through's position in the run's steps
  private collapsed = new Set<string>();
  private drawing: DotResult | null = null;
  private pinned: string | null = null;
  private sized = false;
  private viewport = el('div', 'tft-viewport');
  private details = el('div', 'tft-details');
  private toolbar = el('div', 'tft-toolbar');
  private legend = el('div', 'tft-legend');
  private status = el('span', 'tft-status');
  private stepStatus = el('span', 'tft-step-status');
  private zoom: PanZoom;

  constructor() {
    super();
    this.addClass('tft-graph');
    const body = el('div', 'tft-body');
    body.append(this.viewport, this.details);
    this.node.append(this.toolbar, body, this.legend);
    this.zoom = new PanZoom(this.viewport, () => this.viewport.querySelector('svg'));
    this.viewport.addEventListener('click', e => this.onClick(e));
    this.viewport.addEventListener('mouseover', e => this.onHover(e));
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[MIME_TYPE] as unknown;
    const problem = validateExport(data);
    if (problem) {
      this.node.textContent = `tfteach graph: ${problem}`;
      return;
    }
    this.exp = data as GraphExport;
    const selected = this.exp.view?.selected_run;
    this.runIndex = typeof selected === 'number' ? selected : this.exp.runs.length ? this.exp.runs.length - 1 : null;
    this.collapsed = new Set(initialCollapse(this.exp));
    this.buildToolbar();
    this.buildLegend();
    this.showDetails(null);
    await this.draw(true);
  }

  /** Lays the graph out again (after a run or collapse change) and re-attaches it. */
  private async draw(fit: boolean): Promise<void> {
    const exp = this.exp!;
    this.drawing = toDot(exp, this.runIndex, this.collapsed, this.step);
    this.status.textContent = `${exp.nodes.length} ops, ${this.drawing.boxes} boxes drawn`;
    let svg: SVGSVGElement;
    try {
      svg = (await viz()).renderSVGElement(this.drawing.dot);
    } catch (err) {
      this.viewport.textContent = `Graphviz could not draw this graph: ${String(err)}`;
      return;
    }
    svg.classList.add('tft-svg');
    this.viewport.replaceChildren(svg);
    if (fit) {
      const w = svg.width.baseVal.value || svg.getBBox().width;
      const h = svg.height.baseVal.value || svg.getBBox().height;
      if (!this.sized) {
        // a small graph gets a small viewport (the user can still drag its corner)
        this.viewport.style.height = `${Math.round(Math.min(560, Math.max(180, h + 16)))}px`;
        this.sized = true;
      }
      this.zoom.fit(w, h);
    } else {
      this.zoom.apply();
    }
  }

  private buildToolbar(): void {
    const exp = this.exp!;
    this.toolbar.replaceChildren();
    const label = el('label', 'tft-run-label', 'run: ');
    const select = el('select', 'tft-run-select');
    select.append(new Option('(none: graph only)', '-1'));
    for (const r of exp.runs) {
      // numbered from 1, as the kernel's widgets and the step-through count
      const text = `${r.index + 1}: ${r.kind === 'run' ? '' : r.kind + ': '}${r.label}${r.error ? ' (raised)' : ''}`;
      select.append(new Option(text, String(r.index)));
    }
    select.value = String(this.runIndex ?? -1);
    select.addEventListener('change', () => {
      const i = Number(select.value);
      this.runIndex = i >= 0 ? i : null;
      this.step = null;
      this.updateStepStatus();
      this.showDetails(this.pinned);
      this.buildLegend();
      void this.draw(false);
    });
    label.append(select);
    const button = (text: string, title: string, action: () => void) => {
      const b = el('button', 'tft-button', text);
      b.title = title;
      b.addEventListener('click', action);
      return b;
    };
    this.toolbar.append(
      label,
      button('Fit', 'Fit the whole graph in view', () => void this.draw(true)),
      button('+', 'Zoom in', () => this.zoom.zoomBy(1.25)),
      button('−', 'Zoom out', () => this.zoom.zoomBy(1 / 1.25)),
      button('Collapse all', 'Fold every top-level name scope', () => {
        this.collapsed = new Set(scopesAtDepth(exp, 0));
        void this.draw(true);
      }),
      button('Expand all', 'Open every name scope', () => {
        this.collapsed = new Set();
        void this.draw(true);
      }),
      button('◀ step', "The run's previous step", () => this.move(-1)),
      button('step ▶', "The run's next step: the op (or copy) it ran and its values", () => this.move(1)),
      this.stepStatus,
      this.status
    );
    this.updateStepStatus();
    if (exp.note) {
      this.toolbar.append(el('div', 'tft-note', exp.note));
    }
  }

  private buildLegend(): void {
    const exp = this.exp!;
    this.legend.replaceChildren(el('span', 'tft-legend-title', 'devices:'));
    for (const d of exp.devices) {
      const item = el('span', 'tft-legend-item');
      const swatch = el('span', 'tft-swatch');
      swatch.style.background = /^#[0-9a-fA-F]{3,8}$/.test(d.color) ? d.color : '#eeeeee';
      item.append(swatch, document.createTextNode(d.name + (d.virtual ? ' (virtual GPU)' : '')));
      this.legend.append(item);
    }
    if (!exp.devices.length) {
      this.legend.append(el('span', 'tft-legend-item', 'not placed (no run yet)'));
    }
    const run = this.runIndex !== null ? exp.runs[this.runIndex] : null;
    if (run) {
      const key = (color: string, text: string) => {
        const item = el('span', 'tft-legend-item');
        const swatch = el('span', 'tft-swatch tft-swatch-border');
        swatch.style.borderColor = color;
        item.append(swatch, document.createTextNode(text));
        return item;
      };
      this.legend.append(
        key(RAN_COLOR, `#k: ran k-th in ${run.label} (${run.total_us} µs)`),
        key('#bbbbbb', 'faded: pruned'),
        key(FED_COLOR, 'blue: fed (cut)')
      );
      if (run.error) {
        this.legend.append(el('div', 'tft-run-error', run.error));
      }
    }
  }

  /** Steps through the selected run: the current step is drawn "now" (orange) and
   * its values fill the details pane. */
  private move(by: number): void {
    const run = this.runIndex !== null ? this.exp?.runs[this.runIndex] : undefined;
    if (!run || !run.steps.length) {
      this.stepStatus.textContent = 'no steps to walk in this run';
      return;
    }
    const last = run.steps.length - 1;
    this.step = this.step === null ? (by > 0 ? 0 : last) : Math.min(last, Math.max(0, this.step + by));
    this.updateStepStatus();
    this.details.replaceChildren(
      el('div', 'tft-details-title', `step ${this.step + 1} of ${run.steps.length}`),
      rowsElement(document, stepDetails(run.steps[this.step]))
    );
    void this.draw(false);
  }

  private updateStepStatus(): void {
    const run = this.runIndex !== null ? this.exp?.runs[this.runIndex] : undefined;
    const n = run ? run.steps.length : 0;
    this.stepStatus.textContent = !n ? '' : this.step === null ? `${n} steps` : `step ${this.step + 1} of ${n}`;
  }

  /** The box ("n3" -> op name) or cluster ("cluster_s2" -> scope) under an event. */
  private hit(e: Event): { box?: string; scope?: string } {
    const target = e.target as Element | null;
    const g = target?.closest?.('g.node, g.cluster');
    const title = g?.querySelector(':scope > title')?.textContent ?? '';
    if (!g || !this.drawing) {
      return {};
    }
    if (g.classList.contains('node')) {
      return { box: this.drawing.nodeIds.get(title) };
    }
    return { scope: this.drawing.clusterIds.get(title) };
  }

  private onClick(e: MouseEvent): void {
    if (this.zoom.dragged) {
      this.zoom.dragged = false;
      return;
    }
    const { box, scope } = this.hit(e);
    if (box && box.endsWith('/')) {
      this.collapsed.delete(box.slice(0, -1)); // a folded scope: open it
      this.pinned = null;
      void this.draw(false);
    } else if (box) {
      this.pinned = box;
      this.showDetails(box);
      this.markSelected();
    } else if (scope) {
      this.collapsed.add(scope); // an open scope: fold it into one box
      void this.draw(false);
    }
  }

  private onHover(e: MouseEvent): void {
    const { box } = this.hit(e);
    if (box) {
      this.showDetails(box);
    } else if (this.pinned) {
      this.showDetails(this.pinned);
    }
  }

  private markSelected(): void {
    this.viewport.querySelectorAll('g.node.tft-selected').forEach(g => g.classList.remove('tft-selected'));
    if (!this.drawing || !this.pinned) {
      return;
    }
    for (const [id, box] of this.drawing.nodeIds) {
      if (box === this.pinned) {
        this.viewport.querySelectorAll('g.node').forEach(g => {
          if (g.querySelector(':scope > title')?.textContent === id) {
            g.classList.add('tft-selected');
          }
        });
      }
    }
  }

  private showDetails(box: string | null): void {
    const rows: Row[] = box && this.exp ? boxDetails(this.exp, box, this.runIndex) : [];
    const title = el('div', 'tft-details-title', box ? 'details' : 'Hover or click a node for its details; click a scope to fold it, a folded box to open it; drag to pan, wheel to zoom.');
    this.details.replaceChildren(title);
    if (rows.length) {
      this.details.append(rowsElement(document, rows));
    }
  }

  dispose(): void {
    this.zoom.dispose();
    super.dispose();
  }
}
