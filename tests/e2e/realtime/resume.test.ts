import { bootService, type RunningService } from '@parley/shared';
import { waitFor } from '@parley/testkit';
import { realtimeService } from '@parley/realtime';
import { partsOf } from '../../../services/realtime/src/parts';
import { PLATFORM_TOKEN, startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox, type ApiInbox } from '../../support/contacts';
import { publicContact, publicConversationsPath } from '../../support/conversations';
import { consumerPool, createConsumer, pubsubTokenOf, rawSocket, watch, type CableMessage, type Watched } from '../../support/cable';

/**
 * Issue 14 beyond Chatwoot: resume with `last_event_id`, `resync.required`, revocation by events,
 * and a realtime restart that loses nothing for a client that resumes (the real ActionCable
 * client reconnects by itself; its identifier carries the last id it saw).
 */
describe('/cable resume, revocation and restarts', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;
  const consumers = consumerPool(() => stack.gatewayUrl);
  const consumer = () => consumers.open();
  const pubsubOf = (token: string): Promise<string> => pubsubTokenOf(call, token);
  const A = () => `/api/v1/accounts/${acc.accountId}`;
  const adminParams = async () => ({ pubsub_token: await pubsubOf(acc.admin.token), account_id: acc.accountId, user_id: acc.admin.userId });

  beforeAll(async () => {
    // Reads a flush window apart (longer than the default): a burst's frames go out several to a write.
    stack = await startStack({ service: { realtime: { REALTIME_PING_INTERVAL_MS: 300, REALTIME_FLUSH_MS: 50 } } });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
  });
  afterAll(async () => {
    consumers.disconnectAll();
    await stack?.stop();
  });

  async function conversation(): Promise<{ id: number; pub: string; contactId: number; pubsub: string }> {
    const contact = (await publicContact(call, inbox)) as { id: number; source_id: string; pubsub_token: string };
    const pub = publicConversationsPath(inbox, contact.source_id);
    const opened = await call('POST', pub, { body: {} });
    expect(opened.status).toBe(200);
    return { id: opened.body.id, pub, contactId: contact.id, pubsub: contact.pubsub_token };
  }

  async function reply(convId: number, content: string): Promise<number> {
    const res = await call('POST', `${A()}/conversations/${convId}/messages`, { token: acc.admin.token, body: { content } });
    expect(res.status).toBe(200);
    return res.body.id;
  }

  const messagesOf = (w: Watched, convId: number): CableMessage[] => w.events().filter((m) => m.event === 'message.created' && m.data.conversation_id === convId);
  const byStreamId = (a: string, b: string) => {
    const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
    const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
    return am < bm || (am === bm && as < bs) ? -1 : am === bm && as === bs ? 0 : 1;
  };
  const expectNoDuplicates = (w: Watched) => {
    const ids = w.events().map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
  };

  it('when a client reconnects with the last id it saw, then it gets exactly the events it missed, in order, then live ones', async () => {
    const conv = await conversation();
    const c = consumer();
    const w = watch(c, await adminParams(), { resume: true });
    await w.waitForState('confirmed');
    const before = [await reply(conv.id, 'one'), await reply(conv.id, 'two')];
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === before[1]);

    c.disconnect();
    const missed = [await reply(conv.id, 'three'), await reply(conv.id, 'four'), await reply(conv.id, 'five')];
    c.connect();
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === missed[2], 'the last missed message');
    const live = await reply(conv.id, 'six');
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === live);

    expect(messagesOf(w, conv.id).map((m) => m.data.id)).toEqual([...before, ...missed, live]);
    const ids = w.events().map((m) => m.id as string);
    expect([...ids].sort((a, b) => (BigInt(a.split('-')[0]!) - BigInt(b.split('-')[0]!) || BigInt(a.split('-')[1]!) - BigInt(b.split('-')[1]!)) > 0n ? 1 : -1)).toEqual(ids);
    expectNoDuplicates(w);
  });

  it('when a burst of events is coalesced into flush windows, then every subscriber gets each once, in stream order, and one that drops mid-burst resumes without a gap or a repeat', async () => {
    const conv = await conversation();
    const steady = [watch(consumer(), await adminParams()), watch(consumer(), { pubsub_token: conv.pubsub })];
    const c = consumer();
    const dropping = watch(c, await adminParams(), { resume: true });
    await Promise.all([...steady, dropping].map((w) => w.waitForState('confirmed')));
    const burst = (from: number) => Promise.all(Array.from({ length: 12 }, (_, i) => reply(conv.id, `burst ${from + i}`)));
    const first = burst(0);
    await dropping.waitFor((m) => m.event === 'message.created' && m.data.conversation_id === conv.id, 'the burst begins');
    c.disconnect();
    const ids = [...(await first), ...(await burst(12))];
    c.connect();
    for (const w of [...steady, dropping]) {
      await waitFor(() => messagesOf(w, conv.id).length >= ids.length, { timeoutMs: 20_000, intervalMs: 20, what: `${ids.length} messages` });
    }
    await new Promise((r) => setTimeout(r, 300));
    const order = (w: Watched) => messagesOf(w, conv.id).map((m) => m.data.id as number);
    for (const w of [...steady, dropping]) {
      expect([...order(w)].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      expectNoDuplicates(w);
      const logIds = w.events().map((m) => m.id as string);
      expect(logIds).toEqual([...logIds].sort(byStreamId));
      // The order of appends, the same for everyone (the contact's stream gets the same replies in it).
      expect(order(w)).toEqual(order(steady[0]!));
    }
    // The resumed subscription and the steady one read the same stream: the same entries.
    const seq = (w: Watched) => messagesOf(w, conv.id).map((m) => `${m.id}:${m.data.id}`);
    expect(seq(dropping)).toEqual(seq(steady[0]!));
  });

  it('when a subscription names an id, then the replay starts right after it; an id the log never gave is resync.required, then live events', async () => {
    const conv = await conversation();
    const first = watch(consumer(), await adminParams());
    await first.waitForState('confirmed');
    const ids = [await reply(conv.id, 'a'), await reply(conv.id, 'b'), await reply(conv.id, 'c')];
    await first.waitFor((m) => m.event === 'message.created' && m.data.id === ids[2]);
    const fromA = messagesOf(first, conv.id)[0]!.id as string;

    const s = await rawSocket(stack.gatewayUrl);
    const identifier = JSON.stringify({ channel: 'RoomChannel', ...(await adminParams()), last_event_id: fromA });
    s.send({ command: 'subscribe', identifier });
    await s.waitFor((f) => f.identifier === identifier && f.message?.event === 'message.created' && f.message.data.id === ids[2]);
    const replayed = s.frames.filter((f) => f.identifier === identifier && f.message?.event === 'message.created' && f.message.data.conversation_id === conv.id);
    expect(replayed.map((f) => f.message.data.id)).toEqual([ids[1], ids[2]]);
    expect(s.frames.findIndex((f) => f.type === 'confirm_subscription')).toBeLessThan(s.frames.indexOf(replayed[0]));

    const ahead = JSON.stringify({ channel: 'RoomChannel', ...(await adminParams()), last_event_id: '99999999999999-0' });
    s.send({ command: 'subscribe', identifier: ahead });
    const resync = await s.waitFor((f) => f.identifier === ahead && f.message?.event === 'resync.required');
    expect(resync.message.data).toMatchObject({ account_id: acc.accountId, last_event_id: '99999999999999-0' });
    const later = await reply(conv.id, 'd');
    await s.waitFor((f) => f.identifier === ahead && f.message?.data?.id === later, 'live events after the resync');
    s.ws.close();
  });

  it('when the log is lost (Redis restarted without its data) while a client was away, then on resume it is told once to refetch and gets all the new stream holds, once, in order', async () => {
    const conv = await conversation();
    const rt = stack.services['realtime'] as RunningService;
    const { streamLog } = partsOf(rt.deps as never);
    const stream = streamLog.contactStream(acc.accountId, conv.contactId);
    const { redis } = rt.deps;
    const c = consumer();
    const w = watch(c, { pubsub_token: conv.pubsub }, { resume: true });
    await w.waitForState('confirmed');
    const before = await reply(conv.id, 'before the loss');
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === before);
    const lostAt = w.lastId() as string;

    // The stream is written again before the client comes back: its whole new stream is replayed
    // (before, the resume went on from the newest entry and skipped what came first).
    c.disconnect();
    await redis.del(stream);
    await new Promise((r) => setTimeout(r, 5));
    const after = [await reply(conv.id, 'after the loss 1'), await reply(conv.id, 'after the loss 2')];
    const inStream = async () => (await streamLog.after(stream, '0-0', 100)).map((e) => (e.body.kind === 'event' && e.body.event === 'message.created' ? e.body.data['id'] : null));
    await waitFor(async () => {
      const ids = await inStream();
      return after.every((id) => ids.includes(id));
    }, { timeoutMs: 15_000, intervalMs: 20, what: 'the new stream with both replies' });
    c.connect();
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === after[1], 'the replies of the new stream');
    const live = await reply(conv.id, 'live');
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === live);
    expect(messagesOf(w, conv.id).map((m) => m.data.id)).toEqual([before, ...after, live]);
    const resyncs = w.events().filter((m) => m.event === 'resync.required');
    expect(resyncs).toHaveLength(1);
    expect(resyncs[0]!.data).toMatchObject({ account_id: acc.accountId, last_event_id: lostAt });
    expect(byStreamId(resyncs[0]!.id as string, lostAt)).toBe(1);
    const ids = w.events().map((m) => m.id as string);
    expect(ids).toEqual([...ids].sort(byStreamId));
    expectNoDuplicates(w);

    // The client comes back before the stream is written again: the resync at once (the stream is
    // begun with its genesis entry, after the client's id), then the new stream's events.
    const lastSeen = w.lastId() as string;
    c.disconnect();
    await redis.del(stream);
    await new Promise((r) => setTimeout(r, 5));
    const s = await rawSocket(stack.gatewayUrl);
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: conv.pubsub, last_event_id: lastSeen });
    s.send({ command: 'subscribe', identifier });
    const resync = await s.waitFor((f) => f.identifier === identifier && f.message?.event === 'resync.required');
    expect(resync.message.data).toMatchObject({ account_id: acc.accountId, last_event_id: lastSeen });
    expect(byStreamId(resync.message.id, lastSeen)).toBe(1);
    // The resync's id is where the client stands: resuming from it misses nothing after it.
    const next = await reply(conv.id, 'into the new stream');
    const again = watch(consumer(), { pubsub_token: conv.pubsub, last_event_id: resync.message.id });
    await again.waitFor((m) => m.event === 'message.created' && m.data.id === next);
    expect(again.events().filter((m) => m.event === 'resync.required')).toEqual([]);
    await s.waitFor((f) => f.identifier === identifier && f.message?.event === 'message.created' && f.message.data.id === next);
    const mine = s.frames.filter((f) => f.identifier === identifier && f.message?.event && f.message.event !== 'presence.update');
    expect(mine.map((f) => f.message.event)).toEqual(['resync.required', 'message.created']);
    expect(byStreamId(mine[1].message.id, mine[0].message.id)).toBe(1);
    s.ws.close();
  });

  it('when an agent is removed from the account or a contact is deleted, then their subscriptions end at once and the token is refused', async () => {
    const user = await acc.addUser('agent');
    const params = { pubsub_token: await pubsubOf(user.token), account_id: acc.accountId, user_id: user.userId };
    const w = watch(consumer(), params);
    await w.waitForState('confirmed');
    const removed = await call('DELETE', `${A()}/agents/${user.userId}`, { token: acc.admin.token });
    expect(removed.status).toBe(200);
    await w.waitForState('rejected');
    const again = watch(consumer(), params);
    await again.waitForState('rejected');

    const conv = await conversation();
    const contact = watch(consumer(), { pubsub_token: conv.pubsub });
    await contact.waitForState('confirmed');
    const gone = await call('DELETE', `${A()}/contacts/${conv.contactId}`, { token: acc.admin.token });
    expect(gone.status).toBe(200);
    await contact.waitForState('rejected');
    const after = watch(consumer(), { pubsub_token: conv.pubsub });
    await after.waitForState('rejected');
  });

  it('when the realtime service restarts while events happen, then a resuming client gets every one of them once', async () => {
    const conv = await conversation();
    const c = consumer();
    const w = watch(c, await adminParams(), { resume: true });
    await w.waitForState('confirmed');
    const before = await reply(conv.id, 'before the restart');
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === before);

    const old = stack.services['realtime'] as RunningService;
    await old.stop();
    const during = [await reply(conv.id, 'while down 1'), await reply(conv.id, 'while down 2')];
    const restarted = await bootService(realtimeService, old.deps.config as never, { port: old.port, host: '127.0.0.1', migrate: false });
    stack.services['realtime'] = restarted as RunningService;

    await w.waitFor((m) => m.event === 'message.created' && m.data.id === during[1], 'the messages sent while realtime was down', 45_000);
    const after = await reply(conv.id, 'after the restart');
    await w.waitFor((m) => m.event === 'message.created' && m.data.id === after);
    expect(messagesOf(w, conv.id).map((m) => m.data.id)).toEqual([before, ...during, after]);
    expectNoDuplicates(w);
  });

  it('when two replicas consume and serve at once and writes come in parallel, then the subscribers of both get the same events in the same stream order, each once', async () => {
    const first = stack.services['realtime'] as RunningService;
    const second = await bootService(realtimeService, first.deps.config as never, { port: 0, host: '127.0.0.1', migrate: false });
    try {
      const convs = [await conversation(), await conversation()];
      const direct = createConsumer(second.url);
      consumers.keep(direct);
      const viaFirst = [watch(consumer(), await adminParams()), watch(consumer(), { pubsub_token: convs[0]!.pubsub })];
      const viaSecond = [watch(direct, await adminParams()), watch(direct, { pubsub_token: convs[0]!.pubsub })];
      await Promise.all([...viaFirst, ...viaSecond].map((w) => w.waitForState('confirmed')));
      // Both replicas consume realtime.fanout (competing) while both serve sockets.
      const ids = await Promise.all(Array.from({ length: 24 }, (_, i) => reply(convs[i % 2]!.id, `parallel ${i}`)));
      const mine = (w: Watched, only?: number) => w.events().filter((m) => m.event === 'message.created' && ids.includes(m.data.id) && (only === undefined || m.data.conversation_id === only));
      const expected = [ids.length, ids.filter((_, i) => i % 2 === 0).length];
      for (const [k, w] of [viaFirst[0]!, viaFirst[1]!, viaSecond[0]!, viaSecond[1]!].entries()) {
        const want = expected[k % 2]!;
        await waitFor(() => mine(w).length >= want, { timeoutMs: 15_000, intervalMs: 20, what: `${want} messages on subscription ${k}` });
      }
      const seq = (w: Watched) => mine(w).map((m) => `${m.id}:${m.data.id}`);
      // The same entries, in the same order, whichever replica read them; each once, ids increasing.
      expect(seq(viaSecond[0]!)).toEqual(seq(viaFirst[0]!));
      expect(seq(viaSecond[1]!)).toEqual(seq(viaFirst[1]!));
      expect(new Set(seq(viaFirst[0]!)).size).toBe(ids.length);
      expect(mine(viaFirst[1]!).every((m) => m.data.conversation_id === convs[0]!.id)).toBe(true);
      for (const w of [...viaFirst, ...viaSecond]) {
        expectNoDuplicates(w);
        const logIds = w.events().map((m) => m.id as string);
        expect(logIds).toEqual([...logIds].sort(byStreamId));
      }
    } finally {
      await second.stop();
    }
  });

  it('when a user changes their password, then their realtime token is replaced: subscriptions made with the old one end at once on every replica, the old token is refused though its check was cached, and the new one works', async () => {
    const user = await acc.addUser('agent');
    const oldToken = await pubsubOf(user.token);
    const oldParams = { pubsub_token: oldToken, account_id: acc.accountId, user_id: user.userId };
    const first = stack.services['realtime'] as RunningService;
    const second = await bootService(realtimeService, first.deps.config as never, { port: 0, host: '127.0.0.1', migrate: false });
    try {
      const direct = createConsumer(second.url);
      consumers.keep(direct);
      const viaFirst = watch(consumer(), oldParams);
      const viaSecond = watch(direct, oldParams);
      await Promise.all([viaFirst.waitForState('confirmed'), viaSecond.waitForState('confirmed')]);
      // Another user's subscription in the account is not touched.
      const admin = watch(consumer(), await adminParams());
      await admin.waitForState('confirmed');

      const changed = await call('PATCH', `/platform/api/v1/users/${user.userId}`, { token: PLATFORM_TOKEN, body: { password: 'New-secret-pass-2' } });
      expect(changed.status).toBe(200);
      await Promise.all([viaFirst.waitForState('rejected'), viaSecond.waitForState('rejected')]);
      const newToken = await pubsubOf(user.token);
      expect(newToken).not.toBe(oldToken);
      // The check of the old token was cached (REALTIME_TOKEN_CACHE_SECONDS): the rotation dropped it everywhere.
      for (const c of [consumer(), direct]) await watch(c, oldParams).waitForState('rejected');
      const renewed = [watch(consumer(), { ...oldParams, pubsub_token: newToken }), watch(direct, { ...oldParams, pubsub_token: newToken })];
      await Promise.all(renewed.map((w) => w.waitForState('confirmed')));
      // The new token's subscriptions get the account's events (the agent is in no inbox: contact events reach every user).
      const conv = await conversation();
      for (const w of renewed) await w.waitFor((m) => m.event === 'contact.created' && m.data.id === conv.contactId);
      const later = await reply(conv.id, 'after the rotation');
      await admin.waitFor((m) => m.event === 'message.created' && m.data.id === later);
      expect(admin.state).toBe('confirmed');
    } finally {
      await second.stop();
    }
  });

  it('when two replicas run, then each serves its own sockets and every subscriber gets every event once, whichever replica consumed it', async () => {
    const first = stack.services['realtime'] as RunningService;
    const second = await bootService(realtimeService, first.deps.config as never, { port: 0, host: '127.0.0.1', migrate: false });
    try {
      const conv = await conversation();
      const viaGateway = watch(consumer(), await adminParams());
      const direct = createConsumer(second.url);
      consumers.keep(direct);
      const viaSecond = watch(direct, await adminParams());
      await Promise.all([viaGateway.waitForState('confirmed'), viaSecond.waitForState('confirmed')]);
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push(await reply(conv.id, `replicas ${i}`));
      const seen: number[][] = [];
      for (const w of [viaGateway, viaSecond]) {
        await waitFor(() => ids.every((id) => messagesOf(w, conv.id).some((m) => m.data.id === id)), { timeoutMs: 20_000, intervalMs: 20, what: 'every reply' });
        seen.push(messagesOf(w, conv.id).map((m) => m.data.id));
        expectNoDuplicates(w);
      }
      // Each once, whichever replica consumed it; two competing consumers may append two replies
      // to the stream in either order (the ids say which), but both sockets see the stream's order.
      for (const got of seen) expect([...got].sort((a, b) => a - b)).toEqual(ids);
      expect(seen[1]).toEqual(seen[0]);
    } finally {
      await second.stop();
    }
  });
});
