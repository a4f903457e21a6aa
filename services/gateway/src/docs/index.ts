export { docsRouter } from './routes';
export { openApiDocument, openApiYaml } from './document';
export { operationSources } from './operations';
export { SPEC_OPERATIONS, slotPath, applySpecNames, type SpecOperation } from './spec-operations';
