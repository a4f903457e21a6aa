/**
 * `col = $n, ...` for the keys of a patch that are defined, restricted to `allowed` columns
 * (keys never come from the client unchecked); jsonb columns are JSON-encoded so objects and
 * arrays are stored as JSON, not as Postgres arrays. Always touches `updated_at`.
 */
export function setClause(
  patch: Record<string, unknown>,
  allowed: readonly string[],
  jsonColumns: readonly string[],
  firstIndex: number,
): { sql: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const col of allowed) {
    if (!(col in patch) || patch[col] === undefined) continue;
    const v = patch[col];
    values.push(jsonColumns.includes(col) ? JSON.stringify(v) : v);
    parts.push(`${col} = $${firstIndex + values.length - 1}`);
  }
  parts.push('updated_at = now()');
  return { sql: parts.join(', '), values };
}

/** True when the patch sets at least one allowed column. */
export function hasChanges(patch: Record<string, unknown>, allowed: readonly string[]): boolean {
  return allowed.some((c) => patch[c] !== undefined);
}
