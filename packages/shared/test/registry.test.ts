import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_REGISTRY, baseConfigSchema, serviceEntry } from '../src';

/** The registry is the one list of services: it and the tree agree, and config defaults come from it. */
const ROOT = path.resolve(__dirname, '../../..');

describe('service registry', () => {
  it('when services/ is listed, then every service package has exactly one registry entry and every entry a package', () => {
    const packages = fs.readdirSync(path.join(ROOT, 'services')).filter((n) => fs.existsSync(path.join(ROOT, 'services', n, 'package.json')));
    expect(SERVICE_REGISTRY.map((s) => s.name).sort()).toEqual(packages.sort());
  });

  it('when two entries are compared, then no name, port, URL key or queue is shared', () => {
    for (const key of ['name', 'port', 'urlKey'] as const) {
      const values = SERVICE_REGISTRY.map((s) => s[key]);
      expect(new Set(values).size).toBe(values.length);
    }
    const queues = SERVICE_REGISTRY.flatMap((s) => [...s.queues]);
    expect(new Set(queues).size).toBe(queues.length);
    for (const s of SERVICE_REGISTRY) for (const q of s.queues) expect(q.startsWith(`${s.name}.`)).toBe(true);
  });

  it('when config is parsed with no env, then every service URL defaults to its registry port', () => {
    const config = baseConfigSchema.parse({}) as Record<string, unknown>;
    for (const s of SERVICE_REGISTRY) expect(config[s.urlKey]).toBe(`http://127.0.0.1:${s.port}`);
  });

  it("when a service's own config is parsed with no env, then its PORT is its registry port", () => {
    for (const s of SERVICE_REGISTRY) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(path.join(ROOT, 'services', s.name, 'src', 'config')) as Record<string, unknown>;
      const schema = Object.entries(mod).find(([k]) => k.endsWith('ConfigSchema'))?.[1] as { parse(v: unknown): { PORT: number } } | undefined;
      expect(schema).toBeDefined();
      const required = s.name === 'gateway' ? { PLATFORM_API_TOKEN: 'registry-test-platform-token' } : {};
      expect(schema!.parse(required).PORT).toBe(s.port);
    }
    expect(() => serviceEntry('nope' as never)).toThrow('unknown service nope');
  });
});
