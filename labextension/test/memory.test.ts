import { describe, expect, it } from 'vitest';

import { cellRows, deviceRows, parseReply, releaseText, Snapshot } from '../src/memory';

const MIB = 1 << 20;
const snap: Snapshot = {
  version: 1, extension_loaded: true,
  devices: [
    { name: 'CPU:0', type: 'CPU', virtual: false },
    { name: 'GPU:0', type: 'GPU', virtual: true, total: 2048 * MIB, limit: 1748 * MIB, reserved: 4 * MIB, in_use: 4 * MIB, peak: 8 * MIB }
  ],
  cells: [
    { cell: 2, device: 'GPU:0', virtual: true, in_use_after: 0, reserved_after: 0, peak: MIB, released: 0, holders: [], closed: [] },
    { cell: 3, device: 'GPU:0', virtual: true, in_use_after: 4 * MIB, reserved_after: 4 * MIB, peak: 8 * MIB, released: 1744 * MIB, holders: [['sess', 4 * MIB]], closed: [] }
  ],
  released: null
};

describe('memory panel rows', () => {
  it('lists each device, the CPU as host memory', () => {
    expect(deviceRows(snap)).toEqual([
      ['CPU:0', 'host (not counted)', '-', '-', '-'],
      ['GPU:0 (virtual)', '4 MiB', '4 MiB', '1.71 GiB', '8 MiB']
    ]);
  });

  it('lists the last cells newest first, with their holders', () => {
    const rows = cellRows(snap);
    expect(rows[0]).toEqual(['In [3]', 'GPU:0 (virtual)', '8 MiB', '1.7 GiB', '4 MiB', 'sess 4 MiB']);
    expect(rows[1][0]).toBe('In [2]');
    expect(rows[1][5]).toBe('-');
  });

  it('labels the records a release made', () => {
    const s = { ...snap, cells: [...snap.cells, { ...snap.cells[1], cell: 4, by: 'release button' }] };
    expect(cellRows(s)[0][0]).toBe('release button');
  });

  it('says what a release did', () => {
    expect(releaseText({ ...snap, released: [] })).toBe('No GPU: nothing to release.');
    expect(releaseText({ ...snap, released: [{ ...snap.cells[1], released: 2 * MIB, closed: ['Out[3]'] }] }))
      .toBe('Released 2 MiB (GPU:0: 2 MiB); closed Out[3]');
  });
});

describe('parseReply', () => {
  it('reads the application/json value', () => {
    expect(parseReply({ status: 'ok', data: { 'application/json': snap, 'text/plain': '...' } }).snapshot).toBe(snap);
  });
  it('explains a kernel without tfteach', () => {
    const r = parseReply({ status: 'error', ename: 'ModuleNotFoundError', evalue: "No module named 'tfteach'" });
    expect(r.error).toMatch(/not a tfteach kernel \(ModuleNotFoundError/);
  });
  it('rejects an unexpected value', () => {
    expect(parseReply({ status: 'ok', data: { 'application/json': { version: 2 } } }).error).toBeDefined();
    expect(parseReply(undefined).error).toBeDefined();
  });
});
