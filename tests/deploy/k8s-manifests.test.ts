import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * deploy/k8s as an operator would use it: every overlay renders with plain `kubectl kustomize`,
 * every object validates against the Kubernetes API schemas (KEDA and Prometheus Operator
 * objects against their CRDs), and the policies of issue 18 hold for every service in the
 * service list (scripts/services.js), so a new service without manifests fails here.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { services } = require('../../scripts/services') as { services: Array<{ name: string; port: number; scale: 'cpu' | 'queue'; queues: string[]; semiSpaceMb?: number }> };

const ROOT = path.resolve(__dirname, '../..');
const K8S = path.join(ROOT, 'deploy/k8s');

type Obj = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string>; stringData?: Record<string, string> };

function render(dir: string): Obj[] {
  const run = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 120_000 });
  if (run.error) throw new Error(`kubectl is not installed (bash scripts/ensure-infra.sh installs it): ${run.error.message}`);
  if (run.status !== 0) {
    // deploy/k8s uses kustomize v4+ fields (resources/patches/labels/components); kubectl 1.21+.
    const version = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).stdout;
    throw new Error(`kubectl kustomize ${path.relative(ROOT, dir)} failed (${version.trim()}; needs kubectl 1.21+):\n${run.stderr}`);
  }
  return parseAllDocuments(run.stdout).map((d) => d.toJSON() as Obj).filter(Boolean);
}

const rendered: Record<'dev' | 'production', Obj[]> = {
  dev: render(path.join(K8S, 'overlays/dev')),
  production: render(path.join(K8S, 'overlays/production')),
};
const overlays = Object.keys(rendered) as Array<keyof typeof rendered>;

const find = (objs: Obj[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const all = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const configOf = (objs: Obj[]): Record<string, string> => {
  const cms = all(objs, 'ConfigMap').filter((c) => c.metadata.name.startsWith('parley-config'));
  expect(cms).toHaveLength(1);
  return cms[0]!.data ?? {};
};

describe('the service list says how each service scales', () => {
  it('when a service is listed, then it names its autoscaling signal and the queues it consumes (scripts/services.js)', () => {
    for (const s of services) {
      expect({ name: s.name, scale: s.scale, queues: Array.isArray(s.queues) }).toEqual({ name: s.name, scale: expect.stringMatching(/^(cpu|queue)$/), queues: true });
      if (s.scale === 'queue') expect({ name: s.name, queues: s.queues.length > 0 }).toEqual({ name: s.name, queues: true });
    }
  });
});

describe('deploy/k8s renders and validates', () => {
  it.each(overlays)('when the %s overlay is rendered, then every object validates against its schema', (overlay) => {
    const objs = rendered[overlay];
    expect(objs.length).toBeGreaterThan(20);
    const results = validate(objs);
    expect(results.filter((r) => !r.known).map((r) => `${r.apiVersion} ${r.kind}`)).toEqual([]);
    expect(results.filter((r) => r.error).map((r) => `${r.kind}/${r.name}: ${r.error}`)).toEqual([]);
  });

  it('when the optional Prometheus Operator component is added to production, then it renders a valid PodMonitor for every pod', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-k8s-'));
    try {
      writeFileSync(
        path.join(dir, 'kustomization.yaml'),
        // kustomize takes only relative paths.
        `resources: ["${path.relative(dir, path.join(K8S, 'overlays/production'))}"]\ncomponents: ["${path.relative(dir, path.join(K8S, 'components/prometheus-operator'))}"]\n`,
      );
      const objs = render(dir);
      const pm = find(objs, 'PodMonitor', 'parley');
      expect(pm?.metadata).toMatchObject({ name: 'parley' });
      expect(pm!.spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
      expect(validate([pm!]).map((r) => r.error)).toEqual([null]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the operator examples are read, then they parse and the Kubernetes objects among them validate', () => {
    const dir = path.join(K8S, 'examples');
    const objs = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(path.join(dir, f), 'utf8')).map((d) => d.toJSON() as Obj));
    expect(objs.map((o) => o.kind)).toEqual(expect.arrayContaining(['Cluster', 'RabbitmqCluster', 'Deployment']));
    expect(validate(objs).filter((r) => r.error)).toEqual([]);
  });

  it('when a Deployment is invalid, then the validator says so (the check can fail)', () => {
    const bad = JSON.parse(JSON.stringify(find(rendered.production, 'Deployment', 'gateway'))) as Obj;
    bad.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    bad.spec.template.spec.terminationGracePeriodSeconds = 'soon';
    const [r] = validate([bad]);
    expect(r!.error).toMatch(/containerPort|terminationGracePeriodSeconds/);
  });
});

describe.each(overlays)('deploy/k8s policies (%s)', (overlay) => {
  const objs = rendered[overlay];
  const config = configOf(objs);

  it('when the service list names a service, then it has a Deployment, a Service and a PodDisruptionBudget', () => {
    for (const s of services) {
      expect({ s: s.name, d: !!find(objs, 'Deployment', s.name), svc: !!find(objs, 'Service', s.name), pdb: !!find(objs, 'PodDisruptionBudget', s.name) }).toEqual({ s: s.name, d: true, svc: true, pdb: true });
    }
  });

  it.each(services.map((s) => [s.name, s] as const))('%s: probes, resources, security context, read-only root, spread, metrics, graceful shutdown', (_name, s) => {
    const d = find(objs, 'Deployment', s.name)!;
    const pod = d.spec.template.spec;
    const c = pod.containers.find((x: any) => x.name === s.name);
    // The service's young-generation cap, if it has its own (the registry; the image's NODE_OPTIONS sets the rest's).
    const semiSpace = s.semiSpaceMb !== undefined ? [`--max-semi-space-size=${s.semiSpaceMb}`] : [];
    expect(c.command).toEqual(['node', ...semiSpace, `services/${s.name}/dist/main.js`]);
    expect(c.ports).toEqual(expect.arrayContaining([{ name: 'http', containerPort: s.port }, { name: 'metrics', containerPort: 9464 }]));
    expect(c.env).toEqual(expect.arrayContaining([{ name: 'PORT', value: String(s.port) }, { name: 'OTEL_SERVICE_NAME', value: s.name }]));
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(c.resources.requests.cpu).toBeTruthy();
    expect(c.resources.requests.memory).toBeTruthy();
    expect(c.resources.limits.memory).toBeTruthy();
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number), seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const x of [...pod.containers, ...(pod.initContainers ?? [])]) {
      expect({ name: x.name, sc: x.securityContext }).toEqual({ name: x.name, sc: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } } });
      expect(x.resources?.limits?.memory).toBeTruthy();
    }
    // Writable scratch space only where mounted, and only from an emptyDir.
    const tmp = c.volumeMounts.find((m: any) => m.mountPath === '/tmp');
    expect(pod.volumes.find((v: any) => v.name === tmp.name).emptyDir).toBeDefined();
    // Spread across nodes.
    expect(pod.topologySpreadConstraints).toEqual(expect.arrayContaining([expect.objectContaining({ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { 'app.kubernetes.io/name': s.name } } })]));
    // Scraped on the metrics port, which the Service also names.
    expect(d.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
    expect(config['METRICS_PORT']).toBe('9464');
    expect(find(objs, 'Service', s.name)!.spec.ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'http', port: s.port }), expect.objectContaining({ name: 'metrics', port: 9464 })]));
    // Graceful shutdown: the preStop pause, then the service's own SHUTDOWN_TIMEOUT_MS, then
    // time to finish in-flight events and close connections, all inside the grace period.
    const pause = Number(c.lifecycle.preStop.exec.command[1]);
    expect(c.lifecycle.preStop.exec.command).toEqual(['sleep', String(pause)]);
    expect(pause).toBeGreaterThanOrEqual(3);
    const shutdownS = Number(config['SHUTDOWN_TIMEOUT_MS']) / 1000;
    expect(shutdownS).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + shutdownS + 5);
    expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(pause + shutdownS + 30);
    // A PDB that never blocks a drain of a one-replica service.
    expect(find(objs, 'PodDisruptionBudget', s.name)!.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': s.name } } });
  });

  it('when a release rolls out, then the Job migrates once and the services start without migrating, waiting for their schema', () => {
    expect(config['MIGRATE_ON_START']).toBe('false');
    const job = find(objs, 'Job', 'parley-migrate')!;
    const c = job.spec.template.spec.containers[0];
    expect(c.command).toEqual(['node', 'scripts/migrate.js']);
    expect(c.env).toEqual(expect.arrayContaining([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'parley-db-admin', key: 'DATABASE_URL' } } }]));
    expect(job.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    for (const s of services) {
      const pod = find(objs, 'Deployment', s.name)!.spec.template.spec;
      expect(pod.initContainers.map((i: any) => i.command)).toEqual([['node', 'scripts/migrate.js', '--wait', s.name]]);
      // Only the Job holds the owner's credentials.
      expect(JSON.stringify(pod)).not.toContain('parley-db-admin');
    }
  });

  it('when anything carries a credential, then it comes from a Secret by reference, never a value in the manifests', () => {
    const credential = /(PASSWORD|SECRET|TOKEN|KEY|DATABASE_URL|AMQP_URL|REDIS_URL)$/;
    for (const cm of all(objs, 'ConfigMap')) for (const k of Object.keys(cm.data ?? {})) expect(`${cm.metadata.name}.${k}`).not.toMatch(credential);
    for (const o of [...all(objs, 'Deployment'), ...all(objs, 'Job')]) {
      for (const c of [...o.spec.template.spec.containers, ...(o.spec.template.spec.initContainers ?? [])]) {
        for (const e of c.env ?? []) if (credential.test(e.name)) expect({ where: `${o.metadata.name}/${c.name}`, name: e.name, value: e.value }).toEqual({ where: `${o.metadata.name}/${c.name}`, name: e.name, value: undefined });
      }
    }
    const secrets = all(objs, 'Secret');
    if (overlay === 'production') expect(secrets).toEqual([]);
    // Every Secret a service references exists in dev (generated), with the key asked for.
    if (overlay === 'dev') {
      for (const d of all(objs, 'Deployment')) {
        for (const c of d.spec.template.spec.containers) {
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.secretKeyRef;
            if (!ref) continue;
            const s = secrets.find((x) => x.metadata.name === ref.name);
            expect({ ref, found: !!s?.data?.[ref.key] }).toEqual({ ref, found: true });
          }
        }
      }
    }
  });

  it('when traffic arrives, then only the gateway takes it from outside; services take it from Parley pods; egress is bounded', () => {
    const policies = all(objs, 'NetworkPolicy');
    const deny = policies.find((p) => !p.spec.ingress && !p.spec.egress);
    expect(deny?.spec).toEqual({ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': 'parley' } }, policyTypes: ['Ingress', 'Egress'] });
    // Every Parley pod (services and the migration Job) carries the label the policies select.
    for (const o of [...all(objs, 'Deployment'), ...all(objs, 'Job')].filter((x) => x.metadata.labels?.['app.kubernetes.io/part-of'] === 'parley')) {
      expect(o.spec.template.metadata.labels['app.kubernetes.io/part-of']).toBe('parley');
    }
    const ingressFromAnywhere = policies.filter((p) => (p.spec.ingress ?? []).some((r: any) => !r.from));
    expect(ingressFromAnywhere.map((p) => p.spec.podSelector.matchLabels)).toEqual([{ 'app.kubernetes.io/name': 'gateway' }]);
    for (const p of policies) {
      for (const r of p.spec.ingress ?? []) {
        for (const f of r.from ?? []) {
          // From other namespaces: only to the metrics port (Prometheus).
          if (f.namespaceSelector) expect(r.ports).toEqual([{ protocol: 'TCP', port: 'metrics' }]);
          if (f.ipBlock) throw new Error(`${p.metadata.name} admits an ipBlock`);
        }
      }
    }
    const webhook = policies.find((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'automation' && p.spec.egress);
    expect(webhook!.spec.egress[0].to[0].ipBlock.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '169.254.0.0/16']));
    const egressPorts = policies.flatMap((p) => (p.spec.egress ?? []).flatMap((r: any) => (r.ports ?? []).map((x: any) => x.port)));
    expect(egressPorts).toEqual(expect.arrayContaining([53, 5432, 5672, 6379]));
  });

  if (overlay === 'production') {
    it('when load grows, then HTTP services scale on CPU and consumers on each of their queues, never below one replica', () => {
      const hpas = all(objs, 'HorizontalPodAutoscaler');
      const scaled = all(objs, 'ScaledObject');
      for (const s of services) {
        const hpa = hpas.find((h) => h.spec.scaleTargetRef.name === s.name);
        const so = scaled.find((x) => x.spec.scaleTargetRef.name === s.name);
        // Exactly one autoscaler per Deployment (KEDA makes its own HPA).
        expect({ s: s.name, n: [hpa, so].filter(Boolean).length }).toEqual({ s: s.name, n: 1 });
        if (s.scale === 'cpu') {
          expect(hpa!.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: s.name });
          expect(hpa!.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
          expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(2);
          expect(hpa!.spec.maxReplicas).toBeGreaterThan(hpa!.spec.minReplicas);
        } else {
          expect(so!.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
          expect(so!.spec.maxReplicaCount).toBeGreaterThan(so!.spec.minReplicaCount);
          const queues = so!.spec.triggers.filter((t: any) => t.type === 'rabbitmq').map((t: any) => t.metadata.queueName);
          expect(queues.sort()).toEqual([...s.queues].sort());
          for (const t of so!.spec.triggers.filter((x: any) => x.type === 'rabbitmq')) {
            expect(t.metadata).toMatchObject({ mode: 'QueueLength', protocol: 'amqp' });
            expect(find(objs, 'TriggerAuthentication', t.authenticationRef.name)!.spec.secretTargetRef).toEqual([{ parameter: 'host', name: 'parley-amqp', key: 'AMQP_URL' }]);
          }
        }
      }
    });
  }

  if (overlay === 'dev') {
    it('when trying it out, then one replica each, no autoscaler, and Postgres, RabbitMQ and Redis in the namespace', () => {
      for (const s of services) expect({ s: s.name, r: find(objs, 'Deployment', s.name)!.spec.replicas }).toEqual({ s: s.name, r: 1 });
      expect(all(objs, 'HorizontalPodAutoscaler')).toEqual([]);
      expect(all(objs, 'ScaledObject')).toEqual([]);
      for (const infra of ['postgres', 'rabbitmq', 'redis']) expect(find(objs, 'Service', infra)).toBeDefined();
    });
  }
});

function validate(objs: Obj[]): Array<{ apiVersion: string; kind: string; name: string; known: boolean; error: string | null }> {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'tests/support/validate-k8s.mjs')], { input: JSON.stringify(objs), encoding: 'utf8', timeout: 120_000, cwd: path.join(ROOT, 'tests') });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}
