import { AmqpConnection, createLogger } from '../src';
import { infra, waitFor } from '@parley/testkit';

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
});
