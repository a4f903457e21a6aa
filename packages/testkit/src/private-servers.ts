import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';

/**
 * A port nobody listens on right now, chosen below the kernel's ephemeral range (32768+) so that no
 * outgoing connection of any process can take it between this check and the server's listen (CI
 * once failed with EADDRINUSE that way), and from a block of its own per jest worker so that two
 * workers never pick the same one.
 */
const PORT_BLOCK = 1000;
const PORT_BASE = 20_000;
const WORKER_BLOCKS = 12;
let nextOffset = Math.floor(Math.random() * PORT_BLOCK);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const base = PORT_BASE + ((Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % WORKER_BLOCKS) * PORT_BLOCK;
  for (let tries = 0; tries < PORT_BLOCK; tries++) {
    const port = base + (nextOffset++ % PORT_BLOCK);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${base}..${base + PORT_BLOCK - 1}`);
}

/** Resolves once something accepts TCP connections on the port. */
export async function waitForPort(port: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A redis-server of the test's own on a free port, nothing saved to disk: a fault test stops
 * and starts it at will, never the shared one on 6379.
 */
export class PrivateRedis {
  private proc: ChildProcess | null = null;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.proc !== null;
  }

  async start(): Promise<void> {
    if (this.proc) return;
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    this.proc = proc;
    proc.once('exit', () => {
      if (this.proc === proc) this.proc = null;
    });
    await waitForPort(this.port);
  }

  /** Stops the server (SIGKILL: as abrupt as a crash) and waits until it is gone. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await exited;
  }
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: opts.env ?? process.env });
    let err = '';
    p.stderr?.on('data', (d) => (err += d));
    p.once('error', reject);
    p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`))));
  });
}

/** Debian's server binaries (the newest installed major version), or PG_BIN. */
function pgBin(): string {
  if (process.env['PG_BIN']) return process.env['PG_BIN'];
  const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  return `/usr/lib/postgresql/${versions[0] ?? '15'}/bin`;
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp dir, its own port, trust auth),
 * run as the `postgres` OS user when the test runs as root (Postgres refuses root). A fault
 * test restarts and stops it at will, never the shared server on 5432.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  private static asPostgres(cmd: string, args: string[]): Promise<void> {
    if (process.getuid?.() === 0) return run('runuser', ['-u', 'postgres', '--', cmd, ...args]);
    return run(cmd, args);
  }

  static async start(): Promise<PrivatePostgres> {
    const { mkdtempSync, chownSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-pg-'));
    if (process.getuid?.() === 0) {
      const { execFileSync } = await import('node:child_process');
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(dir, uid, gid);
    }
    const pg = new PrivatePostgres(await freePort(), dir);
    await PrivatePostgres.asPostgres(`${pgBin()}/initdb`, ['-D', `${dir}/data`, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    await pg.startServer();
    return pg;
  }

  /** Admin URL of database `db` (created by the migrations' ensureDatabase when missing). */
  url(db = 'parley'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }

  private ctl(args: string[]): Promise<void> {
    return PrivatePostgres.asPostgres(`${pgBin()}/pg_ctl`, ['-D', `${this.dir}/data`, ...args]);
  }

  async startServer(): Promise<void> {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.ctl(['-w', '-t', '60', '-l', `${this.dir}/log`, '-o', opts, 'start']);
  }

  /** Stops it (fast shutdown: sessions are terminated, as in a restart by an operator). */
  async stopServer(): Promise<void> {
    await this.ctl(['-w', '-t', '60', '-m', 'fast', 'stop']).catch(() => undefined);
  }

  async restart(): Promise<void> {
    await this.stopServer();
    await this.startServer();
  }

  /** Stops it and removes its files. */
  async destroy(): Promise<void> {
    await this.stopServer();
    const { rmSync } = await import('node:fs');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A RabbitMQ node of the test's own: its own node name, AMQP and distribution ports, data and
 * log dirs and config (the machine's rabbitmq.conf names the shared listener). Stopped with
 * SIGTERM (a clean broker stop) and started again on the same data: durable queues and their
 * persistent messages survive, as they would on a real broker restart.
 */
export class PrivateRabbit {
  private proc: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly distPort: number,
    readonly dir: string,
    private readonly node: string,
  ) {}

  static async start(): Promise<PrivateRabbit> {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-mq-'));
    const port = await freePort();
    writeFileSync(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${port}\nloopback_users = none\n`);
    writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
    const mq = new PrivateRabbit(port, await freePort(), dir, `parleyfault${port}@localhost`);
    await mq.start();
    return mq;
  }

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.proc !== null;
  }

  async start(): Promise<void> {
    if (this.proc) return;
    const env = {
      ...process.env,
      RABBITMQ_NODENAME: this.node,
      RABBITMQ_NODE_PORT: String(this.port),
      RABBITMQ_DIST_PORT: String(this.distPort),
      RABBITMQ_MNESIA_BASE: `${this.dir}/mnesia`,
      RABBITMQ_LOG_BASE: `${this.dir}/log`,
      RABBITMQ_CONFIG_FILE: `${this.dir}/rabbitmq.conf`,
      RABBITMQ_ENABLED_PLUGINS_FILE: `${this.dir}/enabled_plugins`,
      RABBITMQ_PID_FILE: `${this.dir}/pid`,
    };
    // Own process group: stop() signals the script and the Erlang VM it starts, nothing else.
    const proc = spawn(process.env['RABBITMQ_SERVER'] ?? '/usr/lib/rabbitmq/bin/rabbitmq-server', [], { env, stdio: 'ignore', detached: true });
    this.proc = proc;
    proc.once('exit', () => {
      if (this.proc === proc) this.proc = null;
    });
    await waitForPort(this.port, 120_000);
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.pid === undefined) return;
    this.proc = null;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    process.kill(-proc.pid, 'SIGTERM');
    await exited;
    // The VM may outlive the script for a moment: wait until the port is free.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !(await portClosed(this.port))) await new Promise((r) => setTimeout(r, 200));
  }

  async destroy(): Promise<void> {
    await this.stop();
    const { rmSync } = await import('node:fs');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function portClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}
