// The "Devices & memory" panel's data: the kernel's reply (tfteach/notebook/lab_channel.py,
// version 1) turned into text rows. Pure functions, tested without a browser.
import { formatBytes } from './bytes';

/** Evaluated by the kernel as a user expression of a silent execute request. */
export const SNAPSHOT_EXPR = "__import__('tfteach.notebook.lab_channel', fromlist=['_']).snapshot()";
export const RELEASE_EXPR = "__import__('tfteach.notebook.lab_channel', fromlist=['_']).release()";

export interface DeviceFigures {
  name: string;
  type: string;
  virtual: boolean;
  total?: number;
  limit?: number;
  reserved?: number;
  in_use?: number;
  peak?: number;
}

export interface CellRecord {
  cell: number | null;
  device: string;
  virtual?: boolean;
  in_use_after: number;
  reserved_after: number;
  peak: number;
  released: number;
  skipped?: boolean;
  holders: [string, number][];
  closed: string[];
  by?: string;
}

export interface Snapshot {
  version: number;
  extension_loaded: boolean;
  devices: DeviceFigures[];
  cells: CellRecord[];
  released: CellRecord[] | null;
}

export const DEVICE_HEADERS = ['device', 'in use', 'reserved', 'limit', 'peak'];
export const CELL_HEADERS = ['cell', 'device', 'peak', 'released', 'after', 'held by'];

export function deviceRows(s: Snapshot): string[][] {
  return s.devices.map(d => {
    const name = d.name + (d.virtual ? ' (virtual)' : '');
    if (d.in_use === undefined) {
      return [name, 'host (not counted)', '-', '-', '-'];
    }
    return [name, formatBytes(d.in_use), formatBytes(d.reserved ?? 0), formatBytes(d.limit ?? 0), formatBytes(d.peak ?? 0)];
  });
}

export function cellRows(s: Snapshot): string[][] {
  // newest first: the cell that just ran is the one a student looks for
  return s.cells
    .slice()
    .reverse()
    .map(r => [
      r.by ? r.by : r.cell === null ? '-' : `In [${r.cell}]`,
      r.device + (r.virtual ? ' (virtual)' : ''),
      formatBytes(r.peak),
      r.skipped ? 'skipped' : formatBytes(r.released),
      formatBytes(r.in_use_after),
      r.holders.filter(h => h[1] > 0).map(h => `${h[0] || '(no name)'} ${formatBytes(h[1])}`).join(', ') || '-'
    ]);
}

/** "Released 1.61 GiB (GPU:0)" / "Nothing to release" for the button's answer. */
export function releaseText(s: Snapshot): string {
  const recs = s.released ?? [];
  if (!recs.length) {
    return 'No GPU: nothing to release.';
  }
  const total = recs.reduce((a, r) => a + r.released, 0);
  const closed = Array.from(new Set(recs.flatMap(r => r.closed)));
  return (
    `Released ${formatBytes(total)} (${recs.map(r => `${r.device}: ${formatBytes(r.released)}`).join(', ')})` +
    (closed.length ? `; closed ${closed.join(', ')}` : '')
  );
}

/** Reads the user-expression reply: the snapshot, or the reason there is none. */
export function parseReply(expr: any): { snapshot?: Snapshot; error?: string } {
  if (!expr) {
    return { error: 'no reply from the kernel' };
  }
  if (expr.status !== 'ok') {
    return { error: `not a tfteach kernel (${expr.ename ?? 'error'}: ${expr.evalue ?? ''})` };
  }
  const data = expr.data?.['application/json'];
  if (!data || data.version !== 1 || !Array.isArray(data.devices)) {
    return { error: 'unexpected reply from the kernel' };
  }
  return { snapshot: data as Snapshot };
}
