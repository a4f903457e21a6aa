import { buildOpenApiDocument, type OpenApiDocument } from '@parley/shared';
import { stringify } from 'yaml';
import { operationSources } from './operations';
import { GETTING_STARTED } from './getting-started';

let cached: { json: OpenApiDocument; yaml: string } | null = null;

/** The merged document of every service, built once per process from the services' zod schemas. */
export function openApiDocument(): OpenApiDocument {
  cached ??= build();
  return cached.json;
}

export function openApiYaml(): string {
  cached ??= build();
  return cached.yaml;
}

function build(): { json: OpenApiDocument; yaml: string } {
  const json = buildOpenApiDocument(operationSources(), {
    title: 'Parley API',
    description: GETTING_STARTED,
    servers: [
      { url: '/', description: 'The gateway serving this document' },
      { url: 'http://localhost:3000', description: 'Local development (`pnpm start`)' },
    ],
  });
  // Objects shared between operations are written out in full, not as YAML anchors.
  return { json, yaml: stringify(json, { aliasDuplicateObjects: false, lineWidth: 0 }) };
}
