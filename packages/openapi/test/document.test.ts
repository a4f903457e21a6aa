import fs from 'node:fs';
import path from 'node:path';
import { buildDocument, documentTexts, DOCUMENT_FILES, SERVICES } from '../src';

/**
 * The committed openapi.json and openapi.yaml are what `pnpm build` makes of the code as it
 * is now: the document is rebuilt here from the services' sources (jest maps each
 * `@parley/<service>` to its src) and must equal the files byte for byte.
 */

const load = (service: string): unknown => require(`@parley/${service}`);

describe('the committed API document', () => {
  const fresh = documentTexts(buildDocument(load));

  it.each(['json', 'yaml'] as const)('when the document is rebuilt from the code, then it equals the committed openapi.%s (else run pnpm build and commit it)', (kind) => {
    const committed = fs.readFileSync(DOCUMENT_FILES[kind], 'utf8');
    if (committed !== fresh[kind]) {
      const a = committed.split('\n');
      const b = fresh[kind].split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(`packages/openapi/openapi.${kind} is stale: run \`pnpm build\` and commit it. First difference at line ${line + 1}:\n- ${a[line]}\n+ ${b[line]}`);
    }
  });

  it('when a service exports operations, then the document lists it (packages/openapi/src/sources.ts)', () => {
    const dir = path.resolve(__dirname, '..', '..', '..', 'services');
    const listed = SERVICES.map((s) => s.name);
    const withOperations = fs.readdirSync(dir).filter((name) => {
      const index = path.join(dir, name, 'src', 'index.ts');
      return fs.existsSync(index) && /\boperations\b/.test(fs.readFileSync(index, 'utf8'));
    });
    expect(withOperations.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('when a listed service does not export its operations, then building says which', () => {
    expect(() => buildDocument((service) => (service === 'audit' ? {} : load(service)))).toThrow(/@parley\/audit does not export its operations/);
  });
});
