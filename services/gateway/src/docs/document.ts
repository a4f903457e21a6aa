import fs from 'node:fs';

/**
 * The API document is a build artefact (`packages/openapi`: `pnpm build` merges every
 * service's operations and writes openapi.json and openapi.yaml, both committed). The gateway
 * serves those files as they are, read once per process: it loads no other service's code.
 */
const texts = new Map<string, string>();

function text(name: 'openapi.json' | 'openapi.yaml'): string {
  let t = texts.get(name);
  if (t === undefined) {
    t = fs.readFileSync(require.resolve(`@parley/openapi/${name}`), 'utf8');
    texts.set(name, t);
  }
  return t;
}

export const openApiJson = (): string => text('openapi.json');
export const openApiYaml = (): string => text('openapi.yaml');
