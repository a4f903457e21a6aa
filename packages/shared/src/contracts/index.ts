/**
 * What owners publish, one zod schema each: the `data` of their events (the catalogue,
 * `../events/catalogue.ts`, maps every event type to one of these) and the answers of their
 * internal APIs (the peers client, `../peers.ts`, parses every answer against them). The
 * payload tables of docs/contracts.md are generated from these (`pnpm docs:contracts`).
 */
export { describeIssues, parseContract } from './common';
export * from './identity';
export * from './conversations';
export * from './contacts';
export { contractsMarkdown, withGeneratedContracts, namedContracts } from './doc';
