import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/**
 * docker-compose.yml stays in step with deploy/k8s: Debian's docker-compose parses and resolves
 * it (no Docker engine needed), and every service in the service list runs there with the same
 * command, port, environment variable names and readiness check as its Kubernetes Deployment.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { services } = require('../../scripts/services') as { services: Array<{ name: string; port: number }> };

const ROOT = path.resolve(__dirname, '../..');

function composeConfig(): { services: Record<string, any> } {
  const run = spawnSync('docker-compose', ['-f', path.join(ROOT, 'docker-compose.yml'), 'config'], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PLATFORM_API_TOKEN: 'compose-test-platform-token' },
  });
  if (run.error) throw new Error(`docker-compose is not installed (bash scripts/ensure-infra.sh installs it): ${run.error.message}`);
  if (run.status !== 0) throw new Error(`docker-compose config failed:\n${run.stderr}`);
  return parse(run.stdout);
}

function k8sProduction(): any[] {
  const run = spawnSync('kubectl', ['kustomize', path.join(ROOT, 'deploy/k8s/overlays/production')], { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(run.stderr || String(run.error));
  return parseAllDocuments(run.stdout).map((d) => d.toJSON());
}

const compose = composeConfig();
const k8s = k8sProduction();
const configMap = k8s.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('parley-config'));

describe('docker-compose.yml', () => {
  it('when docker-compose resolves the file, then the servers, the migration step and every listed service are there', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(['postgres', 'rabbitmq', 'redis', 'migrate', ...services.map((s) => s.name)]));
    expect(compose.services['migrate'].command).toEqual(['node', 'scripts/migrate.js']);
    // Only the gateway is published.
    const published = Object.entries(compose.services).filter(([, s]) => s.ports?.length).map(([n]) => n);
    expect(published).toEqual(['gateway']);
  });

  it.each(services.map((s) => [s.name, s] as const))('%s: same command, port, env names and readiness check as on Kubernetes; waits for the migration', (_n, s) => {
    const c = compose.services[s.name];
    const deployment = k8s.find((o) => o.kind === 'Deployment' && o.metadata.name === s.name);
    const container = deployment.spec.template.spec.containers[0];
    expect(c.command).toEqual(container.command);
    expect(c.environment.PORT).toBe(String(s.port));
    const k8sNames = new Set<string>([...container.env.map((e: { name: string }) => e.name), ...Object.keys(configMap.data)]);
    expect(Object.keys(c.environment).sort()).toEqual([...k8sNames].sort());
    expect(c.environment.MIGRATE_ON_START).toBe('false');
    expect(c.environment.SHUTDOWN_TIMEOUT_MS).toBe(configMap.data.SHUTDOWN_TIMEOUT_MS);
    expect(c.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(c.healthcheck.test.join(' ')).toContain(container.readinessProbe.httpGet.path);
  });
});
