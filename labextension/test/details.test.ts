// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';

import { formatBytes } from '../src/bytes';
import { boxDetails, rowsElement } from '../src/details';
import { XSS, node, small } from './fixtures';

const field = (rows: [string, string][], k: string) => rows.find(r => r[0] === k)?.[1];

describe('boxDetails', () => {
  it('gives op type, inputs, devices, dtype/shape and the run figures', () => {
    const rows = boxDetails(small(), 'layer1/h', 0);
    expect(field(rows, 'op')).toBe('MatMul');
    expect(field(rows, 'inputs')).toBe('x:0, layer1/w:0');
    expect(field(rows, 'requested device')).toBe('(none)');
    expect(field(rows, 'assigned device')).toBe('/job:localhost/replica:0/task:0/device:GPU:0 (virtual GPU)');
    expect(field(rows, 'output 0')).toBe('layer1/h:0: float32 [2,?]');
    expect(field(rows, 'attr transpose_a')).toBe('False');
    expect(field(rows, 'executed')).toBe('#2 of 3');
    expect(field(rows, 'time')).toBe('17 µs');
    expect(field(rows, 'output bytes')).toBe('32 B (32 B)');
  });

  it('says when an op was pruned or fed', () => {
    expect(field(boxDetails(small(), 'unused', 0), 'executed')).toBe('no (pruned in this run)');
    expect(field(boxDetails(small(), 'x', 0), 'fed')).toMatch(/feed_dict/);
  });

  it('has no run rows without a run', () => {
    expect(field(boxDetails(small(), 'layer1/h', null), 'executed')).toBeUndefined();
  });

  it('summarises a folded scope', () => {
    const rows = boxDetails(small(), 'layer1/', 0);
    expect(field(rows, 'ops')).toMatch(/^2 /);
    expect(field(rows, 'executed')).toBe('2 of 2');
  });
});

describe('rowsElement', () => {
  it('shows hostile names and attributes as text', () => {
    const exp = small();
    exp.nodes.push(node(XSS, '', { op: XSS, attrs: { [XSS]: XSS } }));
    const table = rowsElement(document, boxDetails(exp, XSS, 0));
    document.body.append(table);
    expect(table.querySelectorAll('img, script')).toHaveLength(0);
    expect(table.querySelector('td[data-field="name"]')!.textContent).toBe(XSS);
    expect(table.querySelector('td[data-field="op"]')!.textContent).toBe(XSS);
    expect(table.textContent).toContain(`attr ${XSS}`);
  });
});

describe('formatBytes', () => {
  it('matches memory_report.format_bytes', () => {
    // values from tfteach/notebook/memory_report.py's docstring
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(256)).toBe('256 B');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(1.5 * 1024 * 1024)).toBe('1.5 MiB');
    expect(formatBytes(812 * 1024 * 1024)).toBe('812 MiB');
    expect(formatBytes(1748 * 1024 * 1024)).toBe('1.71 GiB');
  });
});
