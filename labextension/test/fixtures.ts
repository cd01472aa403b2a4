// Small exports written by hand (schema v1, docs/graph_export.md) for the unit tests.
import { GraphExport, GraphNode } from '../src/model';

export const XSS = '<img src=x onerror=alert(1)>';

export function node(name: string, scope: string, extra: Partial<GraphNode> = {}): GraphNode {
  return {
    name, op: 'Add', kind: 'op', scope, requested_device: '',
    assigned_device: '/job:localhost/replica:0/task:0/device:CPU:0',
    inputs: [], control_inputs: [],
    outputs: [{ index: 0, tensor: `${name}:0`, dtype: 'float32', shape: [2, null] }],
    attrs: {}, location: '', ...extra
  };
}

/** x (placeholder) -> layer1/w, layer1/h -> out; `unused` is pruned in run 0. */
export function small(): GraphExport {
  const gpu = '/job:localhost/replica:0/task:0/device:GPU:0';
  return {
    version: 1, kind: 'tfteach.graph',
    nodes: [
      node('x', '', { op: 'Placeholder', kind: 'placeholder' }),
      node('layer1/w', 'layer1', { op: 'VariableV2', kind: 'variable', assigned_device: gpu, requested_device: '/gpu:0' }),
      node('layer1/h', 'layer1', {
        op: 'MatMul', assigned_device: gpu,
        inputs: [{ node: 'x', output: 0, tensor: 'x:0' }, { node: 'layer1/w', output: 0, tensor: 'layer1/w:0' }],
        attrs: { transpose_a: 'False' }, location: '<cell>:3'
      }),
      node('out', '', { inputs: [{ node: 'layer1/h', output: 0, tensor: 'layer1/h:0' }] }),
      node('unused', '', { op: 'Const', kind: 'constant' })
    ],
    edges: [
      { src: 'x', src_output: 0, tensor: 'x:0', dst: 'layer1/h', dst_input: 0, control: false, dtype: 'float32', shape: [2, 3] },
      { src: 'layer1/w', src_output: 0, tensor: 'layer1/w:0', dst: 'layer1/h', dst_input: 1, control: false, dtype: 'float32_ref', shape: [3, 4] },
      { src: 'layer1/h', src_output: 0, tensor: 'layer1/h:0', dst: 'out', dst_input: 0, control: false, dtype: 'float32', shape: [2, 4] },
      { src: 'unused', src_output: null, tensor: null, dst: 'out', dst_input: null, control: true, dtype: null, shape: null }
    ],
    scopes: [{ path: 'layer1', parent: '', depth: 1, num_nodes: 2 }],
    devices: [
      { name: 'CPU:0', type: 'CPU', virtual: false, color: '#9ecae1' },
      { name: 'GPU:0', type: 'GPU', virtual: true, color: '#fdae6b' }
    ],
    runs: [{
      index: 0, kind: 'run', label: 'sess.run(out:0)', fetches: ['out:0'], feeds: ['x:0'], targets: [],
      executed: ['layer1/w', 'layer1/h', 'out'], pruned: ['x', 'unused'],
      steps: [
        { index: 0, name: 'layer1/w', op: 'VariableV2', device: 'GPU:0', time_us: 3, output_bytes: 48, is_copy: false },
        { index: 1, name: 'layer1/h', op: 'MatMul', device: 'GPU:0', time_us: 17, output_bytes: 32, is_copy: false },
        { index: 2, name: 'out', op: 'Add', device: 'CPU:0', time_us: 2, output_bytes: 32, is_copy: false }
      ],
      total_us: 22, error: null
    }],
    view: { collapse: null, selected_run: 0, step: null }, note: ''
  };
}

/** An unrolled-RNN-like export: `steps` scopes rnn/step_k, each with `perStep` ops
 * in a sub-scope cell/, chained one after another. */
export function unrolled(steps: number, perStep: number): GraphExport {
  const nodes: GraphNode[] = [];
  const edges: GraphExport['edges'] = [];
  const scopes: GraphExport['scopes'] = [{ path: 'rnn', parent: '', depth: 1, num_nodes: steps * perStep }];
  let prev: string | null = null;
  for (let s = 0; s < steps; s++) {
    scopes.push({ path: `rnn/step_${s}`, parent: 'rnn', depth: 2, num_nodes: perStep });
    scopes.push({ path: `rnn/step_${s}/cell`, parent: `rnn/step_${s}`, depth: 3, num_nodes: perStep });
    for (let k = 0; k < perStep; k++) {
      const name = `rnn/step_${s}/cell/op${k}`;
      nodes.push(node(name, `rnn/step_${s}/cell`));
      if (prev) {
        edges.push({ src: prev, src_output: 0, tensor: `${prev}:0`, dst: name, dst_input: 0, control: false, dtype: 'float32', shape: [1] });
      }
      prev = name;
    }
  }
  scopes.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { version: 1, kind: 'tfteach.graph', nodes, edges, scopes, devices: [], runs: [], view: { collapse: null, selected_run: null, step: null }, note: '' };
}
