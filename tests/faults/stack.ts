import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVICE_REGISTRY } from '@parley/shared';
import { freePort, PrivatePostgres, PrivateRabbit, PrivateRedis, waitFor } from '@parley/testkit';

const ROOT = path.resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { supervise } = require(path.join(ROOT, 'scripts/supervise.js')) as {
  supervise(o: { name: string; start: () => ChildProcess; log?: (l: string) => void; minBackoffMs?: number }): Supervised;
};

export interface Supervised {
  name: string;
  readonly child: ChildProcess | null;
  readonly restarts: number;
  stop(signal?: string): Promise<void>;
}

export interface Replica {
  service: string;
  index: number;
  port: number;
  proc: Supervised;
}

export const PLATFORM_TOKEN = 'fault-suite-platform-token-0123456789';

/**
 * The whole system as real processes (built dist/main.js, as `pnpm start` runs them) against a
 * PostgreSQL, RabbitMQ and Redis of the suite's own, every consumer twice (competing replicas),
 * each process kept running by scripts/supervise.js. Logs go to files under `dir`.
 */
export class FaultStack {
  readonly replicas: Replica[] = [];
  readonly supervisorLog: string[] = [];
  gatewayUrl = '';

  private constructor(
    readonly pg: PrivatePostgres,
    readonly mq: PrivateRabbit,
    readonly redis: PrivateRedis,
    readonly dir: string,
  ) {}

  static async start(): Promise<FaultStack> {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-faults-'));
    const [pg, mq, redis] = await Promise.all([PrivatePostgres.start(), PrivateRabbit.start(), PrivateRedis.start()]);
    const stack = new FaultStack(pg, mq, redis, dir);
    try {
      await stack.migrate();
      await stack.spawnAll();
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  private async migrate(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const p = spawn(process.execPath, [path.join(ROOT, 'scripts/migrate.js')], { env: { ...process.env, DATABASE_URL: this.pg.url(), LOG_LEVEL: 'warn' }, stdio: 'inherit' });
      p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`))));
    });
  }

  private async spawnAll(): Promise<void> {
    const ports: Record<string, number[]> = {};
    for (const s of SERVICE_REGISTRY) ports[s.name] = s.name === 'gateway' ? [await freePort()] : [await freePort(), await freePort()];
    const common: Record<string, string> = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: this.pg.url(),
      AMQP_URL: this.mq.url,
      REDIS_URL: this.redis.url,
      MIGRATE_ON_START: 'false',
      METRICS_PORT: '0',
      SHUTDOWN_TIMEOUT_MS: '2000',
      PLATFORM_API_TOKEN: PLATFORM_TOKEN,
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_PER_TOKEN: '1000000',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_RETRY_BASE_MS: '500',
      WEBHOOK_RETRY_MAX_DELAY_MS: '3000',
      WEBHOOK_MAX_ATTEMPTS: '20',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
    };
    for (const s of SERVICE_REGISTRY) common[s.urlKey] = `http://127.0.0.1:${ports[s.name]![0]}`;
    for (const s of SERVICE_REGISTRY) {
      (ports[s.name] ?? []).forEach((port, index) => {
        const file = createWriteStream(path.join(this.dir, `${s.name}-${index}.log`), { flags: 'a' });
        const proc = supervise({
          name: `${s.name}#${index}`,
          minBackoffMs: 500,
          log: (l) => this.supervisorLog.push(l),
          start: () => {
            const child = spawn(process.execPath, [path.join(ROOT, 'services', s.name, 'dist', 'main.js')], { cwd: ROOT, env: { ...process.env, ...common, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
            child.stdout?.pipe(file, { end: false });
            child.stderr?.pipe(file, { end: false });
            return child;
          },
        });
        this.replicas.push({ service: s.name, index, port, proc });
      });
    }
    this.gatewayUrl = `http://127.0.0.1:${ports['gateway']![0]}`;
    await this.waitReady(120_000);
  }

  /** Every replica answers /readyz (its Postgres, RabbitMQ and Redis are reachable). */
  async waitReady(timeoutMs = 90_000): Promise<void> {
    for (const r of this.replicas) {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${r.port}/readyz`, { signal: AbortSignal.timeout(2000) }).catch(() => null))?.ok, {
        timeoutMs,
        intervalMs: 250,
        what: `${r.service}#${r.index} to be ready (logs in ${this.dir})`,
      });
    }
  }

  /** Restarts so far, per replica (a crash the supervisor hid would show here). */
  restarts(): Record<string, number> {
    return Object.fromEntries(this.replicas.map((r) => [`${r.service}#${r.index}`, r.proc.restarts]));
  }

  replica(service: string, index = 0): Replica {
    const r = this.replicas.find((x) => x.service === service && x.index === index);
    if (!r) throw new Error(`no replica ${service}#${index}`);
    return r;
  }

  /**
   * The warnings and errors the services logged (`service` only, if given), the repeated
   * retry notes left out, last `lines` of them: what a failing test puts in its message, so a CI
   * run's output says what happened after its logs are gone.
   */
  problems(service?: string, lines = 40): string {
    const out: string[] = [];
    for (const f of readdirSync(this.dir).filter((n) => n.endsWith('.log') && (!service || n.startsWith(`${service}-`))).sort()) {
      for (const line of readFileSync(path.join(this.dir, f), 'utf8').split('\n')) {
        if (!/"level":(4|5|6)0/.test(line) || /will retry|stream read failed/.test(line)) continue;
        out.push(`${f.replace(/\.log$/, '')}: ${line.slice(0, 400)}`);
      }
    }
    return out.slice(-lines).join('\n');
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.replicas.map((r) => r.proc.stop('SIGTERM')));
    await Promise.allSettled([this.pg.destroy(), this.mq.destroy(), this.redis.stop()]);
    if (!process.env['KEEP_FAULT_LOGS']) rmSync(this.dir, { recursive: true, force: true });
  }
}
