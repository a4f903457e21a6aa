import { types, type CustomTypesConfig } from 'pg';

const TIMESTAMPTZ = 1184;

/** pg's own parser (postgres-date): what `parseTimestamptz` hands everything unusual to. */
const pgTimestamptz = types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => Date | number | null;

/** The decimal number in s[from, to), or -1 when a character there is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A `timestamptz` as Postgres sends it in text (DateStyle ISO, any TimeZone):
 * `2026-11-24 14:36:53.123456+00`, `...+05:30`, `...-03:00:00`. Read by position, without the
 * three regular expressions of pg's parser (postgres-date), which were the largest JavaScript
 * cost of reading a conversation page (nine timestamps a row; issue 12). Same `Date` as that
 * parser for every input: anything else (infinity, BC, years before 100 or after 9999, another
 * DateStyle) goes to it. Milliseconds are the fraction's first three digits, which is what
 * postgres-date's `1000 * parseFloat(fraction)` comes to once Date.UTC truncates it (checked for
 * every fraction of up to six digits).
 */
export function parseTimestamptz(s: string): Date | number | null {
  const len = s.length;
  if (len < 22 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 32 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return pgTimestamptz(s);
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 7);
  const day = digits(s, 8, 10);
  const hour = digits(s, 11, 13);
  const minute = digits(s, 14, 16);
  const second = digits(s, 17, 19);
  // Years 0-99 are 1900-1999 to Date.UTC; postgres-date corrects that itself.
  if (year < 100 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return pgTimestamptz(s);
  let i = 19;
  let ms = 0;
  if (s.charCodeAt(i) === 46) {
    const start = i + 1;
    i = start;
    while (i < len && i - start < 6 && digits(s, i, i + 1) >= 0) i++;
    const n = i - start;
    if (n === 0) return pgTimestamptz(s);
    ms = n >= 3 ? digits(s, start, start + 3) : n === 2 ? digits(s, start, start + 2) * 10 : digits(s, start, start + 1) * 100;
  }
  const sign = s.charCodeAt(i);
  if (sign !== 43 && sign !== 45) return pgTimestamptz(s);
  // +HH, +HH:MM or +HH:MM:SS, then nothing (no " BC").
  let offset = 0;
  for (let part = 0; part < 3 && i < len; part++) {
    if (part > 0 && s.charCodeAt(i) !== 58) return pgTimestamptz(s);
    const v = digits(s, i + 1, i + 3);
    if (v < 0 || i + 3 > len) return pgTimestamptz(s);
    offset += v * (part === 0 ? 3600 : part === 1 ? 60 : 1);
    i += 3;
  }
  if (i !== len) return pgTimestamptz(s);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - (sign === 45 ? -offset : offset) * 1000);
}

/** The type parsers of the kernel's pools: pg's own, but `timestamptz` read by `parseTimestamptz`. */
export const pgTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === TIMESTAMPTZ && (format === undefined || format === 'text')) return parseTimestamptz;
    return types.getTypeParser(oid, format);
  }) as CustomTypesConfig['getTypeParser'],
};
