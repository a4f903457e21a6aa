/** SPEC's 15 operations: the document's builder owns the list (it names them in the document). */
export { SPEC_OPERATIONS, slotPath, type SpecOperation } from '@parley/openapi';
