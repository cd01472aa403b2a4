import { instance } from '@viz-js/viz';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';

import { quote, shapeText, toDot } from '../src/dot';
import { XSS, node, small, unrolled } from './fixtures';

/** Lays `dot` out with the same Graphviz WASM the browser uses and parses the SVG. */
async function svgOf(dot: string): Promise<Document> {
  const viz = await instance();
  const text = viz.renderString(dot, { format: 'svg' });
  return new JSDOM(text, { contentType: 'image/svg+xml' }).window.document;
}

function labelOf(dot: string, id: string): string {
  const m = new RegExp(`^\\s*${id} \\[.*label="((?:[^"\\\\]|\\\\.)*)"`, 'm').exec(dot);
  return m ? m[1] : '';
}

describe('quote', () => {
  it('escapes markup, quotes, backslashes and newlines', () => {
    expect(quote('a<b>&"c"\\d\ne')).toBe('"a&lt;b&gt;&amp;\\"c\\"\\\\d\\ne"');
  });
  it('leaves plain names alone', () => {
    expect(quote('layer1/w')).toBe('"layer1/w"');
  });
});

describe('shapeText', () => {
  it('prints unknown dimensions and rank', () => {
    expect(shapeText([null, 3])).toBe('[?,3]');
    expect(shapeText([])).toBe('[]');
    expect(shapeText(null)).toBe('<unknown>');
  });
});

describe('toDot', () => {
  it('draws every op once, the scope as a cluster, and maps ids back', () => {
    const r = toDot(small(), 0, []);
    expect(r.boxes).toBe(5);
    expect([...r.nodeIds.values()].sort()).toEqual(['layer1/h', 'layer1/w', 'out', 'unused', 'x']);
    expect([...r.clusterIds.values()]).toEqual(['layer1']);
    expect(r.dot).toContain('subgraph cluster_s0 {');
  });

  it('numbers executed ops in execution order and fades pruned ones', () => {
    const r = toDot(small(), 0, []);
    const id = (name: string) => [...r.nodeIds].find(([, b]) => b === name)![0];
    expect(labelOf(r.dot, id('layer1/w'))).toBe('#1 w\\nVariableV2');
    expect(labelOf(r.dot, id('layer1/h'))).toBe('#2 h\\nMatMul');
    expect(labelOf(r.dot, id('out'))).toBe('#3 out\\nAdd');
    expect(r.dot).toMatch(new RegExp(`${id('unused')} \\[[^\\n]*class="tft-pruned"`));
    // x was fed: drawn as fed, its edge is the cut
    expect(labelOf(r.dot, id('x'))).toBe('x\\nPlaceholder\\nfed');
    expect(r.dot).toContain('label="float32 [2,3]\\nfed (cut)"');
  });

  it('colours boxes by the device they ran on', () => {
    const r = toDot(small(), 0, []);
    const id = [...r.nodeIds].find(([, b]) => b === 'layer1/h')![0];
    expect(r.dot).toMatch(new RegExp(`${id} \\[[^\\n]*fillcolor="#fdae6b"`));
  });

  it('without a run highlights nothing', () => {
    const r = toDot(small(), null, []);
    expect(r.dot).not.toContain('tft-ran');
    expect(r.dot).not.toContain('#1 ');
  });

  it('folds a collapsed scope into one box and keeps edges to it', () => {
    const r = toDot(small(), 0, ['layer1']);
    expect(r.boxes).toBe(4);
    expect([...r.nodeIds.values()]).toContain('layer1/');
    expect(r.clusterIds.size).toBe(0);
    const box = [...r.nodeIds].find(([, b]) => b === 'layer1/')![0];
    expect(labelOf(r.dot, box)).toBe('#1 layer1/\\n(2 ops, folded)');
    const x = [...r.nodeIds].find(([, b]) => b === 'x')![0];
    expect(r.dot).toContain(`${x} -> ${box} `);
  });

  it('lays out with Graphviz: clusters, nodes and edges in the SVG', async () => {
    const doc = await svgOf(toDot(small(), 0, []).dot);
    expect(doc.querySelectorAll('g.node')).toHaveLength(5);
    expect(doc.querySelectorAll('g.cluster')).toHaveLength(1);
    expect(doc.querySelectorAll('g.edge')).toHaveLength(4);
    expect(doc.querySelectorAll('g.node.tft-ran')).toHaveLength(3);
  });

  it('draws a hostile name as text: no element is injected', async () => {
    const exp = small();
    exp.nodes.push(node(XSS, '', { op: '"><script>alert(2)</script>' }));
    exp.scopes.push({ path: XSS + 'scope', parent: '', depth: 1, num_nodes: 1 });
    exp.nodes.push(node(XSS + 'scope/a', XSS + 'scope'));
    const doc = await svgOf(toDot(exp, 0, []).dot);
    expect(doc.querySelectorAll('img, script')).toHaveLength(0);
    const texts = [...doc.querySelectorAll('text')].map(t => t.textContent);
    expect(texts).toContain(XSS);
    expect(texts).toContain('"><script>alert(2)</script>');
    expect(texts).toContain(XSS + 'scope/');
  });

  it('lays out a 1,200-op graph collapsed to 100 boxes', async () => {
    const exp = unrolled(100, 12);
    const { initialCollapse } = await import('../src/folding');
    const r = toDot(exp, null, initialCollapse(exp));
    const doc = await svgOf(r.dot);
    expect(doc.querySelectorAll('g.node')).toHaveLength(100);
  });
});

describe('queues', () => {
  it('draws the queue as a cylinder and its runner threads feeding the enqueue op', async () => {
    const exp = small();
    exp.nodes.push(node('q', '', { op: 'FIFOQueueV2' }), node('q_enqueue', '', { op: 'QueueEnqueueV2' }));
    exp.queues = [{
      name: 'q', op: 'FIFOQueueV2', enqueue_ops: ['q_enqueue'], dequeue_ops: [], readers: [], other_ops: [],
      runners: [{ threads: { q_enqueue: 3 }, close_op: null, cancel_op: null }]
    }];
    const { dot, nodeIds } = toDot(exp, null, []);
    const ids = new Map([...nodeIds].map(([id, name]) => [name, id] as [string, string]));
    expect(dot).toContain(`${ids.get('q')} [shape=cylinder`);
    expect(labelOf(dot, 'r0_0')).toBe('QueueRunner\\n3 threads');
    expect(dot).toContain(`r0_0 -> ${ids.get('q_enqueue')} [style="dashed,bold"`);
    const svg = await svgOf(dot);
    expect(svg.querySelectorAll('g.tft-runner').length).toBe(1);
  });

  it('an export without queues (older bundles) draws as before', () => {
    const exp = small();
    const before = toDot(exp, 0, []).dot;
    exp.queues = [];
    expect(toDot(exp, 0, []).dot).toBe(before);
    expect(before).not.toContain('QueueRunner');
  });
});

describe('long names', () => {
  it('reach the DOT cut, with their full size stated, and Graphviz draws them', async () => {
    const long = 'n'.repeat(20000);
    const exp = small();
    exp.nodes.push(node(long, '', { op: 'Const', kind: 'constant' }));
    const r = toDot(exp, 0, []);
    expect(r.dot).toContain('... (20,000 characters)');
    expect(r.dot.length).toBeLessThan(16384);
    const doc = await svgOf(r.dot);
    expect(doc.querySelectorAll('g.node').length).toBe(r.boxes);
  });
});
