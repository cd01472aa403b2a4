// Byte counts as memory_report.format_bytes writes them (shared by the details pane,
// the copy nodes and the memory panel).
export function formatBytes(n: number): string {
  // memory_report.format_bytes: binary units, at most three significant digits
  if (Math.abs(n) < 1024) {
    return `${Math.round(n)} B`;
  }
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = units[0];
  for (unit of units) {
    value /= 1024;
    if (Math.abs(value) < 1024 || unit === units[units.length - 1]) {
      break;
    }
  }
  if (value === Math.trunc(value) || Math.abs(value) >= 100) {
    return `${Math.round(value)} ${unit}`;
  }
  const text = value.toFixed(Math.abs(value) >= 10 ? 1 : 2).replace(/0+$/, '').replace(/\.$/, '');
  return `${text} ${unit}`;
}
