// The view of a training program (issue 16): training scopes folded from the export's
// hint, the initialization subgraph apart, copies between devices drawn, and the
// step-through's "now" marker and values.
import { instance } from '@viz-js/viz';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';

import { boxDetails, stepDetails } from '../src/details';
import { toDot } from '../src/dot';
import { countBoxes, initialCollapse } from '../src/folding';
import { GraphExport } from '../src/model';
import { node, small } from './fixtures';

async function svgOf(dot: string): Promise<Document> {
  const viz = await instance();
  return new JSDOM(viz.renderString(dot, { format: 'svg' }), { contentType: 'image/svg+xml' })
    .window.document;
}

/** small() plus a gradients/ scope of 5 ops, an init NoOp and w's initializing Assign. */
function training(): GraphExport {
  const exp = small();
  for (let k = 0; k < 5; k++) {
    exp.nodes.push(node(`gradients/g${k}`, 'gradients', { kind: 'gradient' }));
  }
  exp.nodes.push(node('layer1/w/Assign', 'layer1/w', { op: 'Assign', auxiliary: true }));
  exp.nodes.push(node('init', '', { op: 'NoOp', auxiliary: true }));
  exp.edges.push({ src: 'layer1/w/Assign', src_output: null, tensor: null, dst: 'init', dst_input: null, control: true, dtype: null, shape: null });
  exp.edges.push({ src: 'layer1/w', src_output: 0, tensor: 'layer1/w:0', dst: 'layer1/w/Assign', dst_input: 0, control: false, dtype: 'float32_ref', shape: [3, 4] });
  exp.scopes.push({ path: 'gradients', parent: '', depth: 1, num_nodes: 5 });
  exp.scopes.push({ path: 'layer1/w', parent: 'layer1', depth: 2, num_nodes: 1 });
  exp.view = { collapse: null, folded: ['gradients'], selected_run: 0, step: null };
  const run = exp.runs[0];
  run.steps.splice(1, 0, { index: 1, name: 'x:0/_copy_to_GPU:0', op: 'MEMCPYHtoD', device: 'GPU:0', time_us: 1, output_bytes: 24, is_copy: true, outputs: [{ dtype: 'float32', shape: [2, 3], preview: '[[1., 1., 1.], [1., 1., 1.]]' }] });
  run.steps.forEach((s, i) => (s.index = i));
  run.copies = [{ name: 'x:0/_copy_to_GPU:0', op: 'MEMCPYHtoD', tensor: 'x:0', from: 'CPU:0', to: 'GPU:0', bytes: 24 }];
  return exp;
}

describe('a training graph', () => {
  it('starts with the export\'s training scopes folded', () => {
    const exp = training();
    expect(initialCollapse(exp)).toEqual(['gradients']);
    const r = toDot(exp, 0, initialCollapse(exp));
    expect(r.dot).toContain('gradients/\\n(5 ops, folded)');
    expect(countBoxes(exp, ['gradients'])).toBe(countBoxes(exp, []) - 4);
  });

  it('draws the initializers apart, not in their scopes, without shaping the layout', () => {
    const r = toDot(training(), 0, []);
    const aux = r.dot.slice(r.dot.indexOf('subgraph cluster_auxiliary'));
    expect(aux).toContain('initialization (auxiliary nodes)');
    expect(aux).toContain('"layer1/w/Assign\\nAssign"'); // its whole name
    expect(aux).toContain('"init\\nNoOp"');
    expect(r.dot).toMatch(/-> n\d+ \[.*constraint=false/);
  });

  it('draws each copy between devices as a node between producer and consumer', async () => {
    const r = toDot(training(), 0, []);
    expect(r.dot).toMatch(/c0 \[shape=cds.*label="copy HtoD\\nCPU:0 -&gt; GPU:0\\n24 B"/); // "->" as text
    const ids = new Map([...r.nodeIds].map(([id, box]) => [box, id]));
    expect(r.dot).toContain(`${ids.get('x')} -> c0`);
    expect(r.dot).toContain(`c0 -> ${ids.get('layer1/h')}`);
    expect(r.nodeIds.get('c0')).toBe('x:0/_copy_to_GPU:0');
    const doc = await svgOf(r.dot);
    expect(doc.querySelectorAll('g.node').length).toBe(r.boxes + 1); // the copy is drawn
  });

  it('marks the step-through\'s current step, a copy or an op', () => {
    expect(toDot(training(), 0, [], 1).dot).toMatch(/c0 \[.*label="now: copy HtoD/);
    const atMatMul = toDot(training(), 0, [], 2).dot;
    expect(atMatMul).toMatch(/label="now: #\d+ h\\nMatMul"/);
    expect(atMatMul).not.toContain('now: copy');
    // a step inside a folded scope marks the folded box
    const exp = training();
    exp.runs[0].steps.push({ index: 4, name: 'gradients/g2', op: 'Add', device: 'CPU:0', time_us: 1, output_bytes: 4, is_copy: false });
    exp.runs[0].executed.push('gradients/g2');
    expect(toDot(exp, 0, ['gradients'], 4).dot).toMatch(/label="now: #\d+ gradients\/\\n\(5 ops, folded\)"/);
  });

  it('details a step with its values and a copy with its bytes', () => {
    const exp = training();
    const rows = new Map(stepDetails(exp.runs[0].steps[1]));
    expect(rows.get('step')).toBe('#2');
    expect(rows.get('op')).toBe('MEMCPYHtoD (a copy between devices)');
    expect(rows.get('value 0')).toBe('float32 [2,3] [[1., 1., 1.], [1., 1., 1.]]');
    const copy = new Map(boxDetails(exp, 'x:0/_copy_to_GPU:0', 0));
    expect(copy.get('from')).toBe('CPU:0');
    expect(copy.get('bytes')).toBe('24 B (24 B)');
  });
});
