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
});
