/**
 * The services whose operations make up the API document, in the document's order. Each
 * exports `operations` from its package index (its `src/openapi.ts`: `operationsOf(routes)`).
 * Adding a service's operations to the document is one line here; `proxied` services can
 * also answer 503/504 (the gateway reaches them through its proxy).
 */
export const SERVICES: ReadonlyArray<{ name: string; proxied: boolean }> = [
  { name: 'gateway', proxied: false },
  { name: 'conversations', proxied: true },
  { name: 'contacts', proxied: true },
  { name: 'helpcenter', proxied: true },
  { name: 'automation', proxied: true },
  { name: 'audit', proxied: true },
  { name: 'reports', proxied: true },
];
