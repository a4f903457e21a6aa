/**
 * Chatwoot's report CSVs: `Reporting period YYYY-MM-DD to YYYY-MM-DD` first, then a header and one
 * line per row; times humanised as Chatwoot's Reports::TimeFormatPresenter does (the two largest
 * non-zero units of days, hours, minutes, seconds; `--` for none).
 */

const UNITS: Array<[number, string]> = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

export function humanDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--';
  let rest = Math.floor(seconds);
  if (rest <= 0) return '--';
  const parts: string[] = [];
  for (const [size, unit] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
  }
  return parts.slice(0, 2).join(' ');
}

/**
 * One CSV field: quoted when it holds a comma, quote or line break; a leading formula character is
 * neutralised (Chatwoot's CSVSafe) except in "--", the placeholder of a time not measured (Chatwoot
 * writes its rows with plain CSV: "--").
 */
export function csvField(v: string | number): string {
  let s = String(v);
  if (typeof v === 'string' && s !== '--' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (fields: Array<string | number>) => `${fields.map(csvField).join(',')}\n`;

const ymd = (d: Date) => d.toISOString().slice(0, 10);

export function periodLine(since: Date, until: Date): string {
  return csvLine([`Reporting period ${ymd(since)} to ${ymd(until)}`]);
}
