import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createTestEnv, infra, waitFor, type TestEnv } from '@parley/testkit';

/**
 * Tracing as it runs in production, in a real process (jest's module loader hides modules from
 * the instrumentations, so this one cannot run in-process): the gateway's main.ts starts the SDK
 * first, the http, express, pg and ioredis instrumentations record the request, the client's
 * trace is continued, and SIGTERM flushes the spans to the OTLP/HTTP endpoint before exit.
 */
describe('tracing in a service process', () => {
  const ROOT = path.resolve(__dirname, '../../..');
  const TOKEN = 'trace-process-platform-token';
  let env: TestEnv;
  let collector: http.Server;
  const exported: any[] = [];
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    env = await createTestEnv();
    collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') exported.push(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await new Promise((r) => collector.close(r));
    await env.close();
  });

  it('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then a request becomes one trace of instrumented spans, continued from the client and flushed at shutdown', async () => {
    const { amqpUrl, redisUrl } = infra();
    let out = '';
    child = spawn(process.execPath, [path.join(ROOT, 'services/gateway/dist/main.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: env.db.url,
        AMQP_URL: amqpUrl,
        REDIS_URL: redisUrl,
        NAMESPACE: env.namespace,
        QUEUE_EXPIRES_MS: '60000',
        MIGRATE_ON_START: 'false',
        PORT: '0',
        METRICS_PORT: '0',
        PLATFORM_API_TOKEN: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_SERVICE_NAME: 'gateway',
      },
    });
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    const port = await waitFor(() => /"port":(\d+)[^\n]*gateway listening/.exec(out)?.[1], { what: 'gateway listening', timeoutMs: 30_000 });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/readyz`)).ok, { what: 'gateway ready' });

    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${url}/platform/api/v1/accounts`, {
      method: 'POST',
      headers: { api_access_token: TOKEN, 'content-type': 'application/json', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
      body: JSON.stringify({ name: 'Traced' }),
    });
    expect(res.status).toBe(200);

    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child!.on('exit', r));
    expect(code).toBe(0);

    const spans = exported.flatMap((e) =>
      e.resourceSpans.flatMap((rs: any) =>
        rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => ({ service: rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue, scope: ss.scope.name, traceId: s.traceId, name: s.name }))),
      ),
    );
    const ours = spans.filter((s) => s.traceId === traceId);
    expect(new Set(ours.map((s) => s.service))).toEqual(new Set(['gateway']));
    const scopes = new Set(ours.map((s) => s.scope.replace('@opentelemetry/instrumentation-', '')));
    for (const scope of ['http', 'express', 'pg']) expect(scopes).toContain(scope);
    // Probes are not traced, and the relay's and workers' polling makes no traces of its own:
    // every database and Redis span belongs to the request.
    expect(spans.filter((s) => /instrumentation-(pg|ioredis)$/.test(s.scope) && s.traceId !== traceId)).toEqual([]);
  });
});
