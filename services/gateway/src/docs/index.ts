export { docsRouter } from './routes';
export { openApiDocument, openApiYaml } from './document';
export { operationSources } from './operations';
