import fs from 'node:fs';
import path from 'node:path';

/**
 * No service depends on another service's package or source: services share only
 * packages/* (the kernel, contracts, peers client) and talk over HTTP and events. A
 * `services/<name>` file (package.json, tsconfig, source, tests, scripts) that names
 * `@parley/<other service>` or a relative path into `services/<other>` fails here, by name.
 */

const SERVICES_DIR = path.resolve(__dirname, '..', '..', 'services');
const SKIP = new Set(['node_modules', 'dist', 'coverage']);
const TEXT = /\.(ts|js|mjs|cjs|json)$/;

function filesOf(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : filesOf(full);
    return TEXT.test(e.name) && !e.name.endsWith('.tsbuildinfo') ? [full] : [];
  });
}

/** What `file` (of service `own`, with `content`) names of the other services. */
export function crossings(own: string, services: string[], file: string, content: string): string[] {
  const others = services.filter((s) => s !== own);
  const found: string[] = [];
  for (const m of content.matchAll(/@parley\/([a-z0-9-]+)/g)) {
    if (others.includes(m[1] as string)) found.push(m[0]);
  }
  for (const m of content.matchAll(/['"`](\.\.?\/[^'"`\s]*)['"`]/g)) {
    const target = path.relative(SERVICES_DIR, path.resolve(path.dirname(file), m[1] as string));
    const service = target.split(path.sep)[0] as string;
    if (!target.startsWith('..') && others.includes(service)) found.push(m[1] as string);
  }
  return found;
}

describe('services depend on no other service', () => {
  const services = fs.readdirSync(SERVICES_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();

  it('when a file names another service, then the check finds it (package name or relative path)', () => {
    const file = path.join(SERVICES_DIR, 'gateway', 'src', 'docs', 'x.ts');
    expect(crossings('gateway', ['gateway', 'audit'], file, "import { routes } from '@parley/audit';")).toEqual(['@parley/audit']);
    expect(crossings('gateway', ['gateway', 'audit'], file, "const r = require('../../../audit/src/routes');")).toEqual(['../../../audit/src/routes']);
    expect(crossings('gateway', ['gateway', 'audit'], file, "import { x } from '../../../gateway/src/y'; import '@parley/shared';")).toEqual([]);
    expect(crossings('audit', ['gateway', 'audit'], path.join(SERVICES_DIR, 'audit', 'package.json'), '{"dependencies": {"@parley/gateway": "workspace:*"}}')).toEqual(['@parley/gateway']);
  });

  it('when every file of every service is read, then none names another service', () => {
    expect(services.length).toBeGreaterThanOrEqual(6);
    const offences: string[] = [];
    for (const service of services) {
      for (const file of filesOf(path.join(SERVICES_DIR, service))) {
        for (const name of crossings(service, services, file, fs.readFileSync(file, 'utf8'))) {
          offences.push(`${path.relative(SERVICES_DIR, file)} names ${name}`);
        }
      }
    }
    expect(offences).toEqual([]);
  });
});
