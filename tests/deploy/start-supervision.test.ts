import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SERVICE_REGISTRY } from '@parley/shared';
import { createTestDatabase, infra, waitFor, type TestDatabase } from '@parley/testkit';

const ROOT = path.resolve(__dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { supervise } = require(path.join(ROOT, 'scripts/supervise.js'));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('supervise (scripts/supervise.js)', () => {
  it('when the child keeps exiting, then it is restarted with a doubling back-off and each exit is logged; stop() ends it for good', async () => {
    const lines: string[] = [];
    const sup = supervise({ name: 'crasher', start: () => spawn(process.execPath, ['-e', 'process.exit(3)']), log: (l: string) => lines.push(l), minBackoffMs: 50, maxBackoffMs: 200 });
    await waitFor(() => sup.restarts >= 4, { timeoutMs: 20_000, what: 'four restarts' });
    await sup.stop();
    const exits = lines.filter((l) => l.includes('crasher exited (code 3)'));
    expect(exits.slice(0, 4).map((l) => /restarting in ([\d.]+)s/.exec(l)?.[1])).toEqual(['0.05', '0.1', '0.2', '0.2']);
    const after = sup.restarts;
    await new Promise((r) => setTimeout(r, 400));
    expect(sup.restarts).toBe(after);
  });

  it('when stopped, then a long-running child gets SIGTERM and is not restarted', async () => {
    const lines: string[] = [];
    const sup = supervise({ name: 'sleeper', start: () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']), log: (l: string) => lines.push(l) });
    const pid = sup.child.pid as number;
    await sup.stop();
    expect(alive(pid)).toBe(false);
    expect(lines).toEqual([]);
  });
});

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** `pnpm start` as a newcomer runs it, on shifted ports against this file's database. */
describe('scripts/start.js', () => {
  let db: TestDatabase;
  let proc: ChildProcess | null = null;
  let out = '';
  let offset = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    for (;;) {
      offset = 20_000 + Math.floor(Math.random() * 20_000);
      const ports = SERVICE_REGISTRY.flatMap((s, i) => [s.port + offset, 9464 + offset + i]);
      if ((await Promise.all(ports.map(portFree))).every(Boolean)) break;
    }
  });
  const started = () => [...out.matchAll(/\[start\] \w+ started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
  afterAll(async () => {
    // Whatever happened above, nothing of this stack outlives the file.
    if (proc && proc.exitCode === null) proc.kill('SIGKILL');
    for (const pid of started()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await db.drop();
  });

  it('when a service is killed, then it is restarted with back-off and the log says so, the rest runs on, and SIGTERM stops every service', async () => {
    const { amqpUrl, redisUrl } = infra();
    proc = spawn(process.execPath, [path.join(ROOT, 'scripts/start.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT_OFFSET: String(offset),
        DATABASE_URL: db.url,
        AMQP_URL: amqpUrl,
        REDIS_URL: redisUrl,
        NAMESPACE: `t${randomBytes(4).toString('hex')}.`,
        QUEUE_EXPIRES_MS: '60000',
        LOG_LEVEL: 'warn',
        NODE_ENV: 'test',
        DB_POOL_MAX: '2', // a process per service on the shared server: keep their connections few
        SEMI_SPACE_MB_CONTACTS: '12', // one service's young generation set apart from the registry's
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d) => (out += d));
    proc.stderr!.on('data', (d) => (out += d));
    if (process.env['START_TEST_LOG']) proc.stderr!.pipe(require('node:fs').createWriteStream(process.env['START_TEST_LOG']));
    const pids = (name: string) => [...out.matchAll(new RegExp(`\\[start\\] ${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));
    const ready = async (port: number) => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok ?? false;

    await waitFor(() => ready(3000 + offset), { timeoutMs: 90_000, intervalMs: 500, what: `the gateway to be ready:\n${out}` });
    // As long as the gateway's: on a loaded CI machine eight services start on two cores. The output says why, if not.
    await waitFor(() => ready(3002 + offset), { timeoutMs: 90_000, intervalMs: 500, what: `contacts to be ready:\n${out}` });
    const [first] = pids('contacts');
    const gateway = pids('gateway')[0] as number;
    expect(first).toBeDefined();

    process.kill(first as number, 'SIGKILL');
    await waitFor(() => pids('contacts').length === 2, { timeoutMs: 30_000, what: `contacts to be started again:\n${out}` });
    expect(out).toContain('[start] contacts exited (SIGKILL); restarting in 1s');
    await waitFor(() => ready(3002 + offset), { timeoutMs: 60_000, intervalMs: 500, what: 'the restarted contacts to be ready' });
    // The supervisor's output (each service's warnings and a crash's stack) says why, if not.
    if (!alive(gateway)) throw new Error(`the gateway (pid ${gateway}) is gone; the supervisor's output:\n${out}`);
    expect(pids('gateway')).toHaveLength(1);
    expect(proc.exitCode).toBeNull();

    // Each service runs with its own young-generation cap (the registry's semiSpaceMb, or its
    // SEMI_SPACE_MB_<SERVICE>), 8 MB for the rest.
    for (const s of SERVICE_REGISTRY) {
      // Its running process: one that died on a loaded machine (CI once read a pid already gone)
      // is started again by the supervisor within its back-off, with the same flags.
      const pid = await waitFor(() => pids(s.name).filter(alive).at(-1), { timeoutMs: 30_000, what: `a running ${s.name}:\n${out}` });
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const mb = s.name === 'contacts' ? 12 : 'semiSpaceMb' in s ? s.semiSpaceMb : 8;
      expect({ service: s.name, flag: args.find((a) => a.startsWith('--max-semi-space-size=')) }).toEqual({ service: s.name, flag: `--max-semi-space-size=${mb}` });
    }

    const all = SERVICE_REGISTRY.map((s) => s.name).flatMap(pids);
    const exited = new Promise<number | null>((resolve) => proc!.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(all.filter(alive)).toEqual([]);
  }, 240_000);
});
