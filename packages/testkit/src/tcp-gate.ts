import net from 'node:net';

/**
 * A TCP relay in front of a real server (Postgres, RabbitMQ, Redis) that a test can cut and
 * restore: cut() drops every connection through it and stops listening, so the client sees
 * what it would if that server stopped (connections reset, new ones refused), for this client
 * only; the shared server never notices. restore() listens on the same port again.
 * freeze() keeps every connection open but carries nothing either way (a hung server or a
 * silent partition: the client learns only from its own timeouts); thaw() carries on.
 */
export class TcpGate {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private frozen = false;
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

  /** Client connections through the gate that are still open. */
  get connections(): number {
    return this.pairs.size;
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
      const pair: [net.Socket, net.Socket] = [client, upstream];
      this.pairs.add(pair);
      client.on('close', () => {
        upstream.destroy();
        this.pairs.delete(pair);
      });
      upstream.on('close', () => client.destroy());
      if (!this.frozen) this.join(pair);
      else for (const s of pair) s.pause();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  private join([client, upstream]: [net.Socket, net.Socket]): void {
    client.pipe(upstream);
    upstream.pipe(client);
  }

  /** Stops carrying bytes (connections stay open, new ones are accepted and held too). */
  freeze(): void {
    this.frozen = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Carries bytes again, what was held first. */
  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) this.join(pair);
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    this.pairs.clear();
    this.frozen = false;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  close(): Promise<void> {
    return this.cut();
  }
}
