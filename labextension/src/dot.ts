// The graph export as Graphviz DOT, for @viz-js/viz in the browser. It mirrors
// tfteach/notebook/graph_dot.py (the static SVG) so both pictures mean the same:
// fill = assigned device colour (white-ish when never placed), shape by kind, name
// scopes as clusters, and for the selected run: red border and "#k" = executed k-th,
// faded and dashed = pruned, dashed blue = fed tensor (the cut), a small node per copy
// between devices, orange = the step-through's current step ("now"), the
// initialization subgraph apart in its own cluster. Differences: scopes fold one by one
// (`collapsed`), ids map back to names for clicks, and there are no tooltips or legend
// in the DOT (the widget shows details and a legend in HTML).
//
// Every name, op, dtype and label is the kernel's text: `quote` escapes it, so it is
// text in the SVG, never markup.
import { formatBytes } from './bytes';
import { Folding, scopeAncestors } from './folding';
import { GraphExport, GraphNode, Run, UNPLACED_COLOR, shortDevice } from './model';

export const RAN_COLOR = '#c0392b';
export const FED_COLOR = '#1f77b4';
export const DIM_TEXT = '#9a9a9a';
export const NOW_COLOR = '#f39c12';
const AUX = '\u0000auxiliary'; // the auxiliary cluster's key: no scope path looks like it
const AUX_COLUMNS = 4;

const SHAPES: { [kind: string]: [string, string] } = {
  placeholder: ['invhouse', ''],
  variable: ['cylinder', ''],
  constant: ['ellipse', ''],
  gradient: ['box', 'diagonals'],
  op: ['box', 'rounded']
};

/** `text` as a DOT double-quoted string whose rendering is exactly `text`: the SVG
 * markup characters become character entities (Graphviz copies them into the SVG's
 * text, where the XML parser turns them back into characters), backslashes and quotes
 * are escaped (DOT's \N, \G escapes), newlines become DOT's "\n". */
export function quote(text: unknown): string {
  const s = String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r/g, '')
    .replace(/\n/g, '\\n');
  return `"${s}"`;
}

/** `text` cut to `chars` characters with its full size stated, as the kernel's
 * graph_export.preview_text: Graphviz refuses quoted strings over 16 KiB, so a
 * 20,000-character name must not reach the DOT whole. */
export function previewText(text: string, chars = 60): string {
  if (text.length <= chars) {
    return text;
  }
  const suffix = `... (${text.length.toLocaleString('en-US')} characters)`;
  return text.slice(0, Math.max(chars - suffix.length, 1)) + suffix;
}

export function shapeText(shape: (number | null)[] | null): string {
  if (shape === null || shape === undefined) {
    return '<unknown>';
  }
  return `[${shape.map(d => (d === null ? '?' : String(d))).join(',')}]`;
}

function attrs(kw: { [key: string]: string | undefined }): string {
  const parts = Object.keys(kw)
    .filter(k => kw[k] !== undefined)
    .map(k => `${k}=${kw[k]}`);
  return `[${parts.join(', ')}]`;
}

/** What a drawing is made of, so clicks on the SVG map back to the export. */
export interface DotResult {
  dot: string;
  nodeIds: Map<string, string>; // SVG node id ("n3") -> box (op name, or "scope/")
  clusterIds: Map<string, string>; // SVG cluster title ("cluster_s2") -> scope path
  boxes: number;
}

export function selectedRun(exp: GraphExport, runIndex: number | null): Run | null {
  if (runIndex === null || runIndex < 0 || runIndex >= exp.runs.length) {
    return null;
  }
  return exp.runs[runIndex];
}

export function toDot(
  exp: GraphExport,
  runIndex: number | null,
  collapsed: Iterable<string>,
  step: number | null = null
): DotResult {
  const run = selectedRun(exp, runIndex);
  const now = run && step !== null && step >= 0 && step < run.steps.length ? run.steps[step].name : null;
  const auxiliary = new Set(exp.nodes.filter(n => n.auxiliary).map(n => n.name));
  const fold = new Folding(exp, collapsed);
  const colors = new Map(exp.devices.map(d => [d.name, d.color] as [string, string]));
  const ran = new Map<string, number>(); // box -> execution position (1-based)
  const stepDevice = new Map<string, string>();
  const fed = new Set(run ? run.feeds : []);
  const fedOps = new Set([...fed].map(t => t.slice(0, t.lastIndexOf(':'))));
  if (run) {
    run.executed.forEach((name, i) => {
      const box = fold.box(name);
      if (!ran.has(box)) {
        ran.set(box, i + 1);
      }
    });
    for (const s of run.steps) {
      stepDevice.set(s.name, s.device);
    }
  }
  const assigned = new Map(
    exp.nodes.map(n => [n.name, shortDevice(n.assigned_device)] as [string, string])
  );
  const deviceOf = (name: string) => stepDevice.get(name) || assigned.get(name) || '';
  const nodeIds = new Map<string, string>();
  const idOf = new Map<string, string>();
  const nodeId = (box: string) => {
    let id = idOf.get(box);
    if (id === undefined) {
      id = `n${idOf.size}`;
      idOf.set(box, id);
      nodeIds.set(id, box);
    }
    return id;
  };

  // -- boxes, each in the scope it is drawn in --------------------------------------
  const inside = new Map<string, string[]>();
  const put = (scope: string, line: string) => {
    const list = inside.get(scope) ?? [];
    list.push(line);
    inside.set(scope, list);
  };
  const members = new Map<string, GraphNode[]>();
  for (const n of exp.nodes) {
    const box = fold.box(n.name);
    if (box !== n.name) {
      const list = members.get(box) ?? [];
      list.push(n);
      members.set(box, list);
      continue;
    }
    const [shape, extra] = SHAPES[n.kind] ?? SHAPES.op;
    const isAux = auxiliary.has(n.name);
    // apart from its scope, an auxiliary node is labelled with its whole name
    let label = previewText(isAux ? n.name : n.name.slice(n.name.lastIndexOf('/') + 1)) + '\n' + previewText(n.op);
    const style = ['filled'].concat(extra ? [extra] : []);
    let fill = colors.get(deviceOf(n.name)) ?? UNPLACED_COLOR;
    const kw: { [key: string]: string } = { shape };
    if (run) {
      if (ran.has(n.name)) {
        label = `#${ran.get(n.name)} ${label}`;
        Object.assign(kw, { color: quote(RAN_COLOR), penwidth: '2.5', class: '"tft-ran"' });
      } else {
        fill += '55'; // faded: pruned in this run
        Object.assign(kw, { fontcolor: quote(DIM_TEXT), color: quote('#bbbbbb'), class: '"tft-pruned"' });
        style.push('dashed');
      }
      if (fedOps.has(n.name)) {
        label += '\nfed';
        Object.assign(kw, { peripheries: '2', color: quote(FED_COLOR) });
      }
      if (n.name === now) {
        label = 'now: ' + label;
        Object.assign(kw, { color: quote(NOW_COLOR), penwidth: '5', class: '"tft-ran tft-now"' });
      }
    }
    Object.assign(kw, {
      label: quote(label),
      fillcolor: quote(fill),
      style: quote(style.join(',')),
      tooltip: quote(' ')
    });
    put(isAux ? AUX : n.scope, `${nodeId(n.name)} ${attrs(kw)};`);
  }
  for (const [box, nodes] of members) {
    const path = box.slice(0, -1);
    const devices = new Set(nodes.map(n => deviceOf(n.name)));
    let fill =
      devices.size === 1 ? colors.get([...devices][0]) ?? UNPLACED_COLOR : '#ffffff';
    let label = `${previewText(path.slice(path.lastIndexOf('/') + 1))}/\n(${nodes.length} ops, folded)`;
    const kw: { [key: string]: string } = { shape: 'box3d' };
    if (run) {
      if (ran.has(box)) {
        label = `#${ran.get(box)} ${label}`;
        Object.assign(kw, { color: quote(RAN_COLOR), penwidth: '2.5', class: '"tft-ran"' });
      } else {
        fill += '55';
        Object.assign(kw, { fontcolor: quote(DIM_TEXT), class: '"tft-pruned"' });
      }
      if (now !== null && fold.box(now) === box) {
        label = 'now: ' + label;
        Object.assign(kw, { color: quote(NOW_COLOR), penwidth: '5', class: '"tft-ran tft-now"' });
      }
    }
    Object.assign(kw, { label: quote(label), fillcolor: quote(fill), style: 'filled', tooltip: quote(' ') });
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    put(parent, `${nodeId(box)} ${attrs(kw)};`);
  }

  const lines = [
    'digraph tfgraph {',
    '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.35, tooltip=" "];',
    '  node [fontname="Helvetica", fontsize=10, style=filled, penwidth=1];',
    '  edge [fontname="Helvetica", fontsize=8, color="#555555", arrowsize=0.6];'
  ];
  const clusterIds = new Map<string, string>();
  lines.push(...clusters(exp, fold, inside, clusterIds));
  const auxLines = inside.get(AUX) ?? [];
  if (auxLines.length) {
    lines.push(
      '  subgraph cluster_auxiliary {',
      '    label="initialization (auxiliary nodes)"; style="rounded,dotted"; color="#aaaaaa"; fontcolor="#777777"; tooltip=" "; class="tft-auxiliary";'
    );
    lines.push(...auxLines.map(l => '    ' + l));
    // a compact block beside the model, not a row as wide as the page
    const ids = auxLines.map(l => l.slice(0, l.indexOf(' ')));
    for (let i = 0; i + AUX_COLUMNS < ids.length; i++) {
      lines.push(`    ${ids[i]} -> ${ids[i + AUX_COLUMNS]} [style=invis];`);
    }
    lines.push('  }');
  }

  // -- edges ---------------------------------------------------------------------------
  const seen = new Set<string>();
  for (const e of exp.edges) {
    const src = fold.box(e.src);
    const dst = fold.box(e.dst);
    const key = JSON.stringify([src, dst, e.tensor, e.control]);
    if (src === dst || seen.has(key)) {
      continue;
    }
    seen.add(key);
    if (!idOf.has(src) || !idOf.has(dst)) {
      continue; // an edge to an op the export does not list: nothing to draw
    }
    // edges into the initialization subgraph do not shape the model's layout
    const apart = auxiliary.has(src) || auxiliary.has(dst);
    if (e.control) {
      const extra = apart ? ', constraint=false, color="#cccccc"' : '';
      lines.push(`  ${nodeId(src)} -> ${nodeId(dst)} [style=dotted, arrowhead=odot${extra}];`);
      continue;
    }
    let label = `${e.dtype} ${shapeText(e.shape)}`;
    const kw: { [key: string]: string } = {};
    if (e.tensor !== null && fed.has(e.tensor)) {
      label += '\nfed (cut)';
      Object.assign(kw, { style: 'dashed', color: quote(FED_COLOR), fontcolor: quote(FED_COLOR), penwidth: '2' });
    } else if (run && ran.has(src) && ran.has(dst)) {
      Object.assign(kw, { color: quote(RAN_COLOR), penwidth: '1.6' });
    }
    if (apart) {
      kw.constraint = 'false';
      kw.color = kw.color ?? quote('#cccccc');
    }
    kw.label = quote(label);
    lines.push(`  ${nodeId(src)} -> ${nodeId(dst)} ${attrs(kw)};`);
  }
  if (run) {
    lines.push(...copyNodes(exp, run, fold.box.bind(fold), idOf, nodeIds, now));
  }
  lines.push(...queueRunners(exp, fold.box.bind(fold), idOf));
  lines.push('}');
  return { dot: lines.join('\n') + '\n', nodeIds, clusterIds, boxes: idOf.size };
}

/** Queues as cylinders, and each QueueRunner as a box with a bold dashed arrow, "N
 * threads", to every enqueue op its threads run (graph_dot._queue_runners): which
 * thread feeds which queue. Runner ids are our own (`r<i>_<j>`), never the user's text. */
function queueRunners(
  exp: GraphExport,
  box: (name: string) => string,
  idOf: Map<string, string>
): string[] {
  const out: string[] = [];
  const plural = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
  (exp.queues ?? []).forEach((q, i) => {
    const queueId = idOf.get(q.name);
    if (queueId && box(q.name) === q.name) {
      out.push(`  ${queueId} [shape=cylinder, fillcolor="#fff3b0"];`);
    }
    q.runners.forEach((runner, j) => {
      const id = `r${i}_${j}`;
      const count = Object.values(runner.threads).reduce((a, b) => a + b, 0);
      out.push(
        `  ${id} [shape=component, style=filled, fillcolor="#f5eef8", color="#8e44ad", ` +
          `fontcolor="#8e44ad", label=${quote('QueueRunner\n' + plural(count))}, tooltip=${quote(' ')}, class="tft-runner"];`
      );
      for (const [op, threads] of Object.entries(runner.threads)) {
        const target = idOf.get(box(op));
        if (target) {
          out.push(
            `  ${id} -> ${target} [style="dashed,bold", color="#8e44ad", fontcolor="#8e44ad", label=${quote(plural(threads))}];`
          );
        }
      }
    });
  });
  return out;
}

/** A small node per copy between devices (graph_dot._copies), between the producer
 * and the consumers on the copy's device; its id maps back to the copy's step name. */
function copyNodes(
  exp: GraphExport,
  run: Run,
  box: (name: string) => string,
  idOf: Map<string, string>,
  nodeIds: Map<string, string>,
  now: string | null
): string[] {
  const out: string[] = [];
  const stepDevice = new Map(run.steps.map(s => [s.name, s.device] as [string, string]));
  (run.copies ?? []).forEach((c, k) => {
    const id = `c${k}`;
    nodeIds.set(id, c.name);
    const isNow = c.name === now;
    const what = c.op.replace('MEMCPY', '');
    let label = `copy ${what}\n${c.from || '?'} -> ${c.to}\n${formatBytes(c.bytes)}`;
    if (isNow) {
      label = 'now: ' + label;
    }
    const color = quote(isNow ? NOW_COLOR : RAN_COLOR);
    out.push(
      `  ${id} [shape=cds, style=filled, fillcolor="#ffffff", fontsize=8, color=${color}, ` +
        `penwidth=${isNow ? 5 : 1}, label=${quote(label)}, tooltip=${quote(' ')}, class="tft-copy${isNow ? ' tft-now' : ''}"];`
    );
    const producer = idOf.get(box(c.tensor.slice(0, c.tensor.lastIndexOf(':'))));
    if (producer) {
      out.push(`  ${producer} -> ${id} [style=dashed, color=${quote(RAN_COLOR)}];`);
    }
    for (const e of exp.edges) {
      const consumer = idOf.get(box(e.dst));
      if (e.tensor === c.tensor && stepDevice.get(e.dst) === c.to && consumer) {
        out.push(`  ${id} -> ${consumer} [style=dashed, color=${quote(RAN_COLOR)}];`);
      }
    }
  });
  return out;
}

/** Nested `subgraph cluster_sK` blocks, one per open scope; `clusterIds` maps each
 * cluster's name (its <title> in the SVG) back to the scope path. Cluster names are our
 * own ids, never the user's text. */
function clusters(
  exp: GraphExport,
  fold: Folding,
  inside: Map<string, string[]>,
  clusterIds: Map<string, string>
): string[] {
  const children = new Map<string, string[]>();
  for (const s of exp.scopes) {
    if (!fold.isOpen(s.path)) {
      continue;
    }
    const ancestors = scopeAncestors(s.path);
    const parent = ancestors.length > 1 ? ancestors[ancestors.length - 2] : '';
    const list = children.get(parent) ?? [];
    list.push(s.path);
    children.set(parent, list);
  }
  const out: string[] = [];
  const emit = (path: string, indent: number) => {
    const pad = '  '.repeat(indent);
    for (const line of inside.get(path) ?? []) {
      out.push(pad + line);
    }
    for (const child of children.get(path) ?? []) {
      const id = `cluster_s${clusterIds.size}`;
      clusterIds.set(id, child);
      out.push(`${pad}subgraph ${id} {`);
      out.push(
        `${pad}  label=${quote(previewText(child.slice(child.lastIndexOf('/') + 1)) + '/')}; tooltip=${quote(' ')}; ` +
          'style="rounded,dashed"; color="#888888"; fontcolor="#444444"; class="tft-scope";'
      );
      emit(child, indent + 1);
      out.push(pad + '}');
    }
  };
  emit('', 1);
  return out;
}
