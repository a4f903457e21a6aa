import net from 'node:net';
import { Pool } from 'pg';
import { Redis } from 'ioredis';
import { AppError, ATTEMPTS_HEADER, isOutageError, PoisonMessageError, retryDecision, UnavailableError } from '@parley/shared';

/** What the clients really throw when their server is away is classified an outage; bad queries are not. */
describe('isOutageError', () => {
  let silent: net.Server;
  let silentPort = 0;
  let deadPort = 0;
  const held: net.Socket[] = [];

  beforeAll(async () => {
    // Accepts connections and never answers (a server that hangs).
    silent = net.createServer((s) => held.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    silentPort = (silent.address() as net.AddressInfo).port;
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    deadPort = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
    try {
      await fn();
    } catch (err) {
      return err;
    }
    throw new Error('expected a rejection');
  }

  it('when Postgres refuses connections (stopped), then the pool error is an outage', async () => {
    const pool = new Pool({ connectionString: `postgres://x@127.0.0.1:${deadPort}/x`, connectionTimeoutMillis: 1000 });
    const err = await thrown(() => pool.query('SELECT 1'));
    await pool.end();
    expect(isOutageError(err)).toBe(true);
  });

  it('when Postgres does not answer in time, then the pool timeout is an outage', async () => {
    const pool = new Pool({ connectionString: `postgres://x@127.0.0.1:${silentPort}/x`, connectionTimeoutMillis: 200 });
    const err = await thrown(() => pool.query('SELECT 1'));
    await pool.end().catch(() => undefined);
    expect(isOutageError(err)).toBe(true);
  });

  it('when Redis is away and commands fail fast, then the refusal is an outage', async () => {
    const redis = new Redis(`redis://127.0.0.1:${deadPort}`, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    await redis.connect().catch(() => undefined);
    const err = await thrown(() => redis.get('k'));
    redis.disconnect();
    expect(isOutageError(err)).toBe(true);
  });

  it.each([
    ['admin shutdown', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['starting up', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['connection failure', Object.assign(new Error('x'), { code: '08006' })],
    ['terminated', new Error('Connection terminated unexpectedly')],
    ['reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['amqp channel closed', Object.assign(new Error('Channel closed'), { name: 'IllegalOperationError' })],
    ['happy eyeballs', Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), {})],
  ])('when the error says %s, then it is an outage', (_name, err) => {
    expect(isOutageError(err)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a syntax error', Object.assign(new Error('syntax error'), { code: '42601' })],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['nothing', undefined],
  ])('when the error is %s, then it is not an outage', (_name, err) => {
    expect(isOutageError(err)).toBe(false);
  });

  it('when an UnavailableError is built, then it carries Retry-After', () => {
    const err = new UnavailableError();
    expect(err.status).toBe(503);
    expect(Number(err.headers['Retry-After'])).toBeGreaterThan(0);
  });
});

describe('retryDecision (consumers)', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

  it('when a message fails because Postgres is away, then it is retried without spending an attempt, however often', () => {
    let headers: Record<string, unknown> = { [ATTEMPTS_HEADER]: 4 };
    for (let i = 0; i < 50; i++) {
      const d = retryDecision(refused, headers, 5);
      expect(d).toMatchObject({ deadLetter: false, attempts: 4, outage: true });
      headers = { [ATTEMPTS_HEADER]: d.attempts };
    }
  });

  it("when a peer answers 503, then that is an outage too", () => {
    expect(retryDecision(new AppError(503, 'unavailable', 'x'), {}, 5)).toMatchObject({ deadLetter: false, attempts: 0, outage: true });
  });

  it('when a message fails for another reason, then attempts count up to dead-lettering', () => {
    expect(retryDecision(new Error('bug'), { [ATTEMPTS_HEADER]: 3 }, 5)).toMatchObject({ deadLetter: false, attempts: 4 });
    expect(retryDecision(new Error('bug'), { [ATTEMPTS_HEADER]: 4 }, 5)).toMatchObject({ deadLetter: true, attempts: 5 });
    expect(retryDecision(new PoisonMessageError('bad'), {}, 5)).toMatchObject({ deadLetter: true });
  });
});
