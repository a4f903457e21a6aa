import net from 'node:net';

/**
 * A TCP relay in front of a real server (Postgres, RabbitMQ, Redis) that a test can cut and
 * restore: cut() drops every connection through it and stops listening, so the client sees
 * what it would if that server stopped (connections reset, new ones refused), for this client
 * only; the shared server never notices. restore() listens on the same port again.
 */
export class TcpGate {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A gate to the host and port of `url` (postgres://, amqp://, redis://). */
  static async to(url: string): Promise<TcpGate> {
    const u = new URL(url);
    const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'amqp:': 5672, 'redis:': 6379 };
    const gate = new TcpGate(u.hostname, Number(u.port || defaults[u.protocol] || 0));
    await gate.restore();
    return gate;
  }

  /** `url` with its host and port replaced by the gate's. */
  url(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  get open(): boolean {
    return this.server !== null;
  }

  async restore(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  close(): Promise<void> {
    return this.cut();
  }
}
