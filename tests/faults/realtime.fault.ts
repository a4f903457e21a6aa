import { randomBytes } from 'node:crypto';
import { waitFor } from '@parley/testkit';
import { createConsumer, watch, type CableMessage, type Watched } from '../support/cable';
import { FaultStack, PLATFORM_TOKEN } from './stack';

// The stock client counts a socket stale after a second (tests/support/cable.ts): ping faster than that.
process.env['REALTIME_PING_INTERVAL_MS'] = '300';

/*
 * The /cable channel under faults (issue 14, docs/reliability.md): real processes (two realtime
 * replicas competing on `realtime.fanout`, the gateway proxying /cable to the first), private
 * servers, and the real @rails/actioncable client resuming with `last_event_id`. Each test keeps
 * a user's and a contact's subscription open while public-API messages are written, breaks one
 * thing, restores it, writes more, and then checks every subscription: each accepted message
 * arrived, none twice, and everything in stream order.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('realtime fault suite', () => {
  let stack: FaultStack;
  let accountId = 0;
  let userId = 0;
  let token = '';
  let pubsub = '';
  let inbox = '';
  const consumers: Array<ReturnType<typeof createConsumer>> = [];

  async function api(method: string, path: string, body?: unknown, auth: Record<string, string> = { api_access_token: token }): Promise<any> {
    const res = await fetch(stack.gatewayUrl + path, { method, headers: { 'content-type': 'application/json', ...auth }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text ? JSON.parse(text) : {};
  }

  beforeAll(async () => {
    stack = await FaultStack.start();
    const platform = { api_access_token: PLATFORM_TOKEN };
    const account = await api('POST', '/platform/api/v1/accounts', { name: 'Realtime Faults' }, platform);
    const user = await api('POST', '/platform/api/v1/users', { name: 'Cable Admin', email: `cable-${randomBytes(3).toString('hex')}@faults.test`, password: 'Secret-pass-1' }, platform);
    await api('POST', `/platform/api/v1/accounts/${account.id}/account_users`, { user_id: user.id, role: 'administrator' }, platform);
    accountId = account.id;
    userId = user.id;
    token = user.access_token;
    pubsub = (await api('GET', '/api/v1/profile')).pubsub_token;
    inbox = (await api('POST', `/api/v1/accounts/${accountId}/inboxes`, { name: 'Cable faults', channel: { type: 'api' } })).inbox_identifier;
  }, 300_000);

  afterAll(async () => {
    for (const c of consumers) c.disconnect();
    await stack?.stop();
  }, 180_000);

  const messagesOf = (w: Watched) => w.events().filter((m) => m.event === 'message.created');
  const resyncsOf = (w: Watched) => w.events().filter((m) => m.event === 'resync.required');

  /** No event twice (by log id, and by message id), and log ids increasing: one stream, in order. */
  function expectOnceInOrder(w: Watched): void {
    const ids = w.events().map((m) => m.id as string);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const key = (id: string) => id.split('-').map((x) => BigInt(x)) as [bigint, bigint];
    const unordered = ids.filter((id, i) => {
      if (i === 0) return false;
      const [am, as] = key(ids[i - 1] as string);
      const [bm, bs] = key(id);
      return !(bm > am || (bm === am && bs > as));
    });
    expect(unordered).toEqual([]);
    const msgIds = messagesOf(w).map((m) => m.data.id as number);
    expect(msgIds.filter((id, i) => msgIds.indexOf(id) !== i)).toEqual([]);
  }

  /**
   * Two conversations written to through the public API while `fault` runs (it restores what it
   * breaks); `url` says where the client's sockets go (the gateway unless told). Returns the two
   * subscriptions once every accepted message reached them. `logLostAt`: the fault loses the log (a
   * Redis without persistence) at the time it answers, so a message posted in the seconds before
   * may have been appended and not yet read when the log went: such a message may be missing (the
   * subscription's resync.required tells the client to refetch it); none posted after may.
   */
  async function underFault(tag: string, fault: () => Promise<void>, opts: { url?: () => string; killed?: string[]; logLostAt?: () => number } = {}): Promise<{ user: Watched; contact: Watched; accepted: number[] }> {
    const restartsBefore = stack.restarts();
    const base = `/public/api/v1/inboxes/${inbox}`;
    const convs: Array<{ id: number; path: string; pubsub: string }> = [];
    for (let i = 0; i < 2; i++) {
      const contact = await api('POST', `${base}/contacts`, { name: `Cable ${tag} ${i}`, email: `${tag}-${i}-${randomBytes(3).toString('hex')}@faults.test` }, {});
      const conv = await api('POST', `${base}/contacts/${contact.source_id}/conversations`, {}, {});
      convs.push({ id: conv.id, path: `${base}/contacts/${contact.source_id}/conversations/${conv.id}/messages`, pubsub: contact.pubsub_token });
    }
    const consumer = createConsumer(opts.url ?? stack.gatewayUrl);
    consumers.push(consumer);
    const user = watch(consumer, { pubsub_token: pubsub, account_id: accountId, user_id: userId }, { resume: true });
    const contact = watch(consumer, { pubsub_token: convs[0]!.pubsub }, { resume: true });
    await Promise.all([user.waitForState('confirmed'), contact.waitForState('confirmed')]);

    const accepted: Array<{ id: number; conv: number; sentAt: number }> = [];
    const refused: unknown[] = [];
    let running = true;
    const loop = (async () => {
      for (let n = 0; running; n++) {
        const conv = convs[n % convs.length]!;
        try {
          const sentAt = Date.now();
          const res = await fetch(stack.gatewayUrl + conv.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: `cable-${tag}-${n}` }), signal: AbortSignal.timeout(10_000) });
          const body = (await res.json()) as { id?: number };
          if (res.status === 200 && typeof body.id === 'number') accepted.push({ id: body.id, conv: conv.id, sentAt });
          else refused.push({ status: res.status, body });
        } catch (err) {
          refused.push((err as Error).message);
        }
        await sleep(100);
      }
    })();
    try {
      await user.waitFor((m) => m.event === 'message.created' && accepted.some((a) => a.id === m.data.id), 'a live message before the fault', 30_000);
      await sleep(1000);
      await fault();
      await sleep(4000);
    } finally {
      running = false;
      await loop;
    }
    expect(refused).toEqual([]);
    expect(accepted.length).toBeGreaterThan(20);
    const all = accepted.map((a) => a.id);
    const contactIds = accepted.filter((a) => a.conv === convs[0]!.id).map((a) => a.id);
    const lostAt = opts.logLostAt?.() ?? 0;
    // Only the last moments before the loss: what was posted earlier had time to be read.
    const excused = (id: number) => accepted.some((a) => a.id === id && a.sentAt < lostAt && a.sentAt > lostAt - 3000);
    const missing = () => ({
      user: all.filter((id) => !excused(id) && !user.received.some((m) => m.event === 'message.created' && m.data.id === id)),
      contact: contactIds.filter((id) => !excused(id) && !contact.received.some((m) => m.event === 'message.created' && m.data.id === id)),
    });
    await waitFor(() => missing().user.length === 0 && missing().contact.length === 0, { timeoutMs: 120_000, intervalMs: 250, what: `every message of run ${tag} on the sockets (logs in ${stack.dir})` }).catch((err: Error) => {
      const ids = (w: Watched) => w.received.map((m) => `${m.event}:${m.id}${m.event === 'message.created' ? `:${m.data.id}` : ''}`).join(' ');
      throw new Error(
        `${err.message}; missing ${JSON.stringify(missing())}\nuser got: ${ids(user)}\ncontact got: ${ids(contact)}\nrealtime and gateway logged:\n${stack.problems('realtime')}\n${stack.problems('gateway')}`,
      );
    });
    await sleep(2000); // late duplicates would show now
    for (const w of [user, contact]) expectOnceInOrder(w);
    // The contact's socket carries its own conversation only.
    expect(messagesOf(contact).every((m) => m.data.conversation_id === convs[0]!.id)).toBe(true);
    await stack.waitReady(60_000);
    const expected = { ...restartsBefore };
    for (const k of opts.killed ?? []) expected[k] = (expected[k] ?? 0) + 1;
    expect(stack.restarts()).toEqual(expected);
    consumer.disconnect();
    return { user, contact, accepted: all };
  }

  it('when RabbitMQ restarts while clients are subscribed, then every message written meanwhile and after reaches each subscription once, in order', async () => {
    const { user, contact } = await underFault('mq', async () => {
      await stack.mq.stop();
      try {
        await sleep(8000);
      } finally {
        await stack.mq.start();
      }
    });
    // The log (Redis) was never lost: nothing to refetch.
    expect(resyncsOf(user)).toEqual([]);
    expect(resyncsOf(contact)).toEqual([]);
  }, 400_000);

  it('when Redis restarts (and loses the log) while clients are subscribed, then delivery goes on: every message written from the loss on reaches each subscription once, and each is told once to refetch what the lost log held', async () => {
    let lostAt = 0;
    const { user, contact } = await underFault(
      'redis',
      async () => {
        await stack.redis.stop();
        lostAt = Date.now();
        try {
          await sleep(8000);
        } finally {
          await stack.redis.start();
        }
      },
      // Entries appended but not yet read when Redis stopped are gone with its log (one read can
      // bring one stream's entries before the next read brings another's): told by the resync.
      { logLostAt: () => lostAt },
    );
    // This Redis keeps nothing on disk: the streams start again, and the subscriptions that
    // followed them say so once (Chatwoot's sockets went silent instead, #11442, #14703).
    const [userResync] = resyncsOf(user) as [CableMessage];
    expect(resyncsOf(user)).toHaveLength(1);
    expect(userResync.data).toMatchObject({ account_id: accountId, last_event_id: expect.stringMatching(/^\d+-\d+$/) });
    expect(resyncsOf(contact)).toHaveLength(1);
  }, 400_000);

  it('when the realtime replica serving a client is killed, then the client resumes on the other replica and gets every message once, in order', async () => {
    const ports = [stack.replica('realtime', 0).port, stack.replica('realtime', 1).port];
    let target = ports[0] as number;
    const { user, contact } = await underFault(
      'kill',
      async () => {
        const r = stack.replica('realtime', 0);
        const pid = r.proc.child?.pid;
        target = ports[1] as number;
        if (pid) process.kill(pid, 'SIGKILL');
        await waitFor(() => r.proc.restarts > 0 && r.proc.child !== null && r.proc.child.pid !== pid, { timeoutMs: 30_000, what: 'realtime#0 to be restarted' });
      },
      { url: () => `ws://127.0.0.1:${target}/cable`, killed: ['realtime#0'] },
    );
    expect(resyncsOf(user)).toEqual([]);
    expect(resyncsOf(contact)).toEqual([]);
  }, 400_000);
});
