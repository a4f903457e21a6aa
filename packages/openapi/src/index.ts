export { buildDocument, documentTexts, operationSources, type ServiceLoader } from './document';
export { DOCUMENT_FILES } from './files';
export { SERVICES } from './sources';
export { SPEC_OPERATIONS, slotPath, applySpecNames, type SpecOperation } from './spec-operations';
