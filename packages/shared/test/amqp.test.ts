import { AmqpConnection, createLogger } from '../src';
import { infra, TcpGate, waitFor } from '@parley/testkit';

const log = createLogger('amqp-test', 'silent');

describe('AmqpConnection against a real RabbitMQ', () => {
  it('when a set-up fails on a new connection, then the connection is not kept as ready: it is made again and every set-up runs, the later ones included', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, `amqptest${process.pid}.`);
    const ran: string[] = [];
    let failures = 1;
    try {
      await amqp.onConnect(async () => {
        if (failures-- > 0) throw new Error('a transient failure while attaching');
        ran.push('first');
      });
      await amqp.onConnect(async () => void ran.push('second'));
      await expect(amqp.connect()).rejects.toThrow(/transient/);
      // Not ready while a set-up is missing.
      expect(amqp.connected).toBe(false);
      // AmqpConnection reconnects on its own (the failed connection's close), running both.
      await waitFor(() => ran.includes('first') && ran.includes('second'), { timeoutMs: 20_000, what: 'both set-ups on a new connection' });
      expect(amqp.connected).toBe(true);
      expect(ran).toEqual(['first', 'second']);
    } finally {
      await amqp.close();
    }
  });

  it('when a set-up keeps failing, then connections are tried again and again, further apart each time (1, 2, 4 s...), never kept as ready', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, `amqptest${process.pid}b.`);
    let calls = 0;
    try {
      await amqp.onConnect(async () => {
        calls++;
        throw new Error('a queue whose arguments the broker refuses');
      });
      amqp.start();
      await new Promise((r) => setTimeout(r, 6000));
      // Tries at about 0, 1 and 3 s (the next at 7): a slower host makes fewer, never more.
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(calls).toBeLessThanOrEqual(4);
      expect(amqp.connected).toBe(false);
    } finally {
      await amqp.close();
    }
  });

  it('when a set-up registered on a live connection fails, then that connection is not kept as ready: it is made again with every set-up', async () => {
    const amqp = new AmqpConnection(infra().amqpUrl, log, `amqptest${process.pid}c.`);
    const ran: string[] = [];
    let failures = 1;
    try {
      await amqp.onConnect(async () => void ran.push('earlier'));
      await amqp.connect();
      expect(ran).toEqual(['earlier']);
      await expect(
        amqp.onConnect(async () => {
          if (failures-- > 0) throw new Error('a transient failure while attaching');
          ran.push('later');
        }),
      ).rejects.toThrow(/transient/);
      expect(amqp.connected).toBe(false);
      await waitFor(() => ran.includes('later'), { timeoutMs: 20_000, what: 'the later set-up on a new connection' });
      expect(amqp.connected).toBe(true);
      // The new connection ran every set-up, the earlier one again.
      expect(ran).toEqual(['earlier', 'earlier', 'later']);
    } finally {
      await amqp.close();
    }
  });

  it('when close() comes while a connection is being made, then that connection is closed once made and no set-up runs on it', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, `amqptest${process.pid}d.`);
    let ran = 0;
    try {
      await amqp.onConnect(async () => void ran++);
      gate.freeze();
      const attempt = amqp.connect().then(() => 'connected', (err: Error) => err.message);
      await waitFor(() => gate.connections === 1, { timeoutMs: 10_000, what: 'the attempt to reach the gate' });
      const closing = amqp.close();
      gate.thaw();
      await closing;
      // The attempt got its connection and gave it up because of close(), not for another reason.
      expect(await attempt).toBe('amqp connection closed');
      await waitFor(() => gate.connections === 0, { timeoutMs: 10_000, what: 'the connection made during close() to be closed' });
      expect(ran).toBe(0);
      expect(amqp.connected).toBe(false);
    } finally {
      await amqp.close();
      await gate.close();
    }
  });

  it('when close() comes while the set-ups run, then the later ones never run and the connection is closed, never handed out', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, `amqptest${process.pid}e.`);
    const ran: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    try {
      await amqp.onConnect(async () => {
        ran.push('first');
        await held;
      });
      await amqp.onConnect(async () => void ran.push('second'));
      const attempt = amqp.connect().then(() => 'connected', (err: Error) => err.message);
      await waitFor(() => ran.includes('first'), { timeoutMs: 10_000, what: 'the first set-up' });
      const closing = amqp.close();
      release();
      await closing;
      expect(await attempt).toMatch(/closed/);
      expect(ran).toEqual(['first']);
      expect(amqp.connected).toBe(false);
      await waitFor(() => gate.connections === 0, { timeoutMs: 10_000, what: 'the connection to be closed' });
    } finally {
      release();
      await amqp.close();
      await gate.close();
    }
  });

  it('when the link goes silent, then close() still returns (after a few seconds), instead of waiting minutes for the heartbeat', async () => {
    const gate = await TcpGate.to(infra().amqpUrl);
    const amqp = new AmqpConnection(gate.url(infra().amqpUrl), log, `amqptest${process.pid}f.`);
    try {
      await amqp.connect();
      gate.freeze();
      const started = Date.now();
      await amqp.close();
      // The broker never answers the close (frozen link); the heartbeat would end it after 2-3 minutes.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(amqp.connected).toBe(false);
    } finally {
      gate.thaw();
      await amqp.close();
      await gate.close();
    }
  });
});
