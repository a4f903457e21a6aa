/**
 * A user's search text as a safe `to_tsquery('simple', ...)` string: every word must match,
 * each as a prefix (Chatwoot's pg_search `prefix: true`). Only letters and digits survive,
 * so no tsquery syntax can be injected. '' when the text has no words at all.
 */
export function toTsQuery(text: string, maxWords = 16): string {
  const words = text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)]
    .slice(0, maxWords)
    .map((w) => `${w}:*`)
    .join(' & ');
}
