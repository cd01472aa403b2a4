// The graph export as Graphviz DOT, for @viz-js/viz in the browser. It mirrors
// tfteach/notebook/graph_dot.py (the static SVG) so both pictures mean the same:
// fill = assigned device colour (white-ish when never placed), shape by kind, name
// scopes as clusters, and for the selected run: red border and "#k" = executed k-th,
// faded and dashed = pruned, dashed blue = fed tensor (the cut). Differences: scopes
// fold one by one (`collapsed`), ids map back to names for clicks, and there are no
// tooltips or legend in the DOT (the widget shows details and a legend in HTML).
//
// Every name, op, dtype and label is the kernel's text: `quote` escapes it, so it is
// text in the SVG, never markup.
import { Folding, scopeAncestors } from './folding';
import { GraphExport, GraphNode, Run, UNPLACED_COLOR, shortDevice } from './model';

export const RAN_COLOR = '#c0392b';
export const FED_COLOR = '#1f77b4';
export const DIM_TEXT = '#9a9a9a';

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
  collapsed: Iterable<string>
): DotResult {
  const run = selectedRun(exp, runIndex);
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
    let label = n.name.slice(n.name.lastIndexOf('/') + 1) + '\n' + n.op;
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
    }
    Object.assign(kw, {
      label: quote(label),
      fillcolor: quote(fill),
      style: quote(style.join(',')),
      tooltip: quote(' ')
    });
    put(n.scope, `${nodeId(n.name)} ${attrs(kw)};`);
  }
  for (const [box, nodes] of members) {
    const path = box.slice(0, -1);
    const devices = new Set(nodes.map(n => deviceOf(n.name)));
    let fill =
      devices.size === 1 ? colors.get([...devices][0]) ?? UNPLACED_COLOR : '#ffffff';
    let label = `${path.slice(path.lastIndexOf('/') + 1)}/\n(${nodes.length} ops, folded)`;
    const kw: { [key: string]: string } = { shape: 'box3d' };
    if (run) {
      if (ran.has(box)) {
        label = `#${ran.get(box)} ${label}`;
        Object.assign(kw, { color: quote(RAN_COLOR), penwidth: '2.5', class: '"tft-ran"' });
      } else {
        fill += '55';
        Object.assign(kw, { fontcolor: quote(DIM_TEXT), class: '"tft-pruned"' });
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
    if (e.control) {
      lines.push(`  ${nodeId(src)} -> ${nodeId(dst)} [style=dotted, arrowhead=odot];`);
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
    kw.label = quote(label);
    lines.push(`  ${nodeId(src)} -> ${nodeId(dst)} ${attrs(kw)};`);
  }
  lines.push('}');
  return { dot: lines.join('\n') + '\n', nodeIds, clusterIds, boxes: idOf.size };
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
        `${pad}  label=${quote(child.slice(child.lastIndexOf('/') + 1) + '/')}; tooltip=${quote(' ')}; ` +
          'style="rounded,dashed"; color="#888888"; fontcolor="#444444"; class="tft-scope";'
      );
      emit(child, indent + 1);
      out.push(pad + '}');
    }
  };
  emit('', 1);
  return out;
}
