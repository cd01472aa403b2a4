// What the details pane says about one box: plain [label, value] rows computed from the
// export alone, shown with textContent (never innerHTML), so every name stays text.
import { shapeText, selectedRun } from './dot';
import { formatBytes } from './bytes';
import { GraphExport, Step, shortDevice } from './model';

export type Row = [string, string];

/** Rows for one step of a run (the step-through): what ran, where, and its values. */
export function stepDetails(step: Step): Row[] {
  const rows: Row[] = [
    ['step', `#${step.index + 1}`],
    ['name', step.name],
    ['op', step.op + (step.is_copy ? ' (a copy between devices)' : '')],
    ['device', step.device],
    ['time', `${step.time_us} µs`],
    ['output bytes', `${step.output_bytes} B (${formatBytes(step.output_bytes)})`]
  ];
  (step.outputs ?? []).forEach((o, i) => {
    const shape = o.shape === null ? '' : ` [${o.shape.join(',')}]`;
    rows.push([`value ${i}`, `${o.dtype ?? ''}${shape} ${o.preview}`.trim()]);
  });
  return rows;
}

/** Rows for op `name` (or a folded scope box "path/", or a copy's step name) in run
 * `runIndex`. */
export function boxDetails(exp: GraphExport, box: string, runIndex: number | null): Row[] {
  const run = selectedRun(exp, runIndex);
  const copy = run?.copies?.find(c => c.name === box);
  if (copy) {
    return [
      ['copy', copy.name],
      ['op', copy.op],
      ['tensor', copy.tensor],
      ['from', copy.from || '?'],
      ['to', copy.to],
      ['bytes', `${copy.bytes} B (${formatBytes(copy.bytes)})`]
    ];
  }
  if (box.endsWith('/')) {
    const path = box.slice(0, -1);
    const inside = exp.nodes.filter(n => n.scope === path || n.scope.startsWith(path + '/'));
    const rows: Row[] = [
      ['scope', path + '/'],
      ['ops', `${inside.length} (folded; click to expand)`]
    ];
    if (run) {
      const executed = new Set(run.executed);
      rows.push(['executed', `${inside.filter(n => executed.has(n.name)).length} of ${inside.length}`]);
    }
    return rows;
  }
  const n = exp.nodes.find(x => x.name === box);
  if (!n) {
    return [['name', box]];
  }
  const virtual = new Set(exp.devices.filter(d => d.virtual).map(d => d.name));
  const assigned = shortDevice(n.assigned_device);
  const rows: Row[] = [
    ['name', n.name],
    ['op', n.op],
    ['kind', n.kind],
    ['inputs', n.inputs.map(i => i.tensor).join(', ') || '(none)']
  ];
  if (n.control_inputs.length) {
    rows.push(['control inputs', n.control_inputs.map(c => '^' + c).join(', ')]);
  }
  rows.push(['requested device', n.requested_device || '(none)']);
  rows.push([
    'assigned device',
    n.assigned_device ? n.assigned_device + (virtual.has(assigned) ? ' (virtual GPU)' : '') : '(not placed)'
  ]);
  for (const o of n.outputs) {
    rows.push([`output ${o.index}`, `${o.tensor}: ${o.dtype} ${shapeText(o.shape)}`]);
  }
  for (const k of Object.keys(n.attrs)) {
    rows.push([`attr ${k}`, String(n.attrs[k])]);
  }
  if (n.location) {
    rows.push(['built at', n.location]);
  }
  if (run) {
    const pos = run.executed.indexOf(n.name);
    rows.push(['run', run.label]);
    if (pos < 0) {
      rows.push(['executed', 'no (pruned in this run)']);
    } else {
      rows.push(['executed', `#${pos + 1} of ${run.executed.length}`]);
      const step = run.steps.find(s => s.name === n.name);
      if (step) {
        rows.push(['ran on', step.device]);
        rows.push(['time', `${step.time_us} µs`]);
        rows.push(['output bytes', `${step.output_bytes} B (${formatBytes(step.output_bytes)})`]);
      }
    }
    if (run.feeds.some(t => t.slice(0, t.lastIndexOf(':')) === n.name)) {
      rows.push(['fed', 'yes: its value came from feed_dict']);
    }
  }
  return rows;
}

/** A <dl>-like table of rows, built with text nodes only. */
export function rowsElement(doc: Document, rows: Row[]): HTMLElement {
  const table = doc.createElement('table');
  table.className = 'tft-details-table';
  for (const [label, value] of rows) {
    const tr = doc.createElement('tr');
    const th = doc.createElement('th');
    th.textContent = label;
    const td = doc.createElement('td');
    td.textContent = value;
    td.dataset.field = label;
    tr.append(th, td);
    table.append(tr);
  }
  return table;
}
