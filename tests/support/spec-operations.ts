/** SPEC's 15 operations: the gateway's docs own the list (it names them in the document). */
export { SPEC_OPERATIONS, slotPath, type SpecOperation } from '../../services/gateway/src/docs/spec-operations';
