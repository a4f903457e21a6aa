/** Unix seconds (Chatwoot's timestamp unit); null/undefined become 0 as Chatwoot's views do. */
export function unixSeconds(d: Date | string | null | undefined): number {
  if (d === null || d === undefined) return 0;
  const t = typeof d === 'string' ? Date.parse(d) : d.getTime();
  return Number.isFinite(t) ? Math.floor(t / 1000) : 0;
}

/** Unix seconds or null. */
export function unixSecondsOrNull(d: Date | string | null | undefined): number | null {
  return d === null || d === undefined ? null : unixSeconds(d);
}

/** ISO-8601 with milliseconds, or null. */
export function isoOrNull(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return (typeof d === 'string' ? new Date(d) : d).toISOString();
}
