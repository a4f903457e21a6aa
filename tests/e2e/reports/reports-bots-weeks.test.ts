import { createBus, type TestBus } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox } from '../../support/contacts';
import { History } from './history';
import { DAY, T0, waitForReports } from './scripted';

/**
 * Bot resolutions and weekly buckets against Chatwoot, over a history at known times (T0 is Sunday
 * 2025-03-02 00:00 UTC) in an inbox made at the conversations service.
 *
 * 1: pending (a bot's) Monday: incoming, the bot replies, the bot resolves.        -> a bot resolution
 * 2: pending Monday: incoming, the bot replies, agent X writes a private note, the bot resolves.
 *    Chatwoot: a user's outgoing message exists (a note is one), so not the bot's.
 * 3: pending the next Monday: incoming, the bot replies, the bot resolves.          -> a bot resolution
 * 4: open Tuesday: incoming, X replies, X resolves.
 */
describe('reports: bot resolutions and weeks', () => {
  let stack: Stack;
  let bus: TestBus;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  const get = async (path: string) => {
    const res = await call('GET', `/api/v2/accounts/${acc.accountId}${path}`, { token: acc.admin.token });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'reports'] });
    bus = createBus(stack.env.namespace);
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    const inbox = await createApiInbox(call, acc);
    const x = acc.agent.userId;
    const bot = { type: 'agent_bot' as const, id: 4 };
    const h = new History(acc.accountId, T0, inbox.id);
    h.create(1, DAY, { status: 'pending' }).incoming(1, DAY).botReply(1, DAY + 10, 4).status(1, DAY + 60, 'resolved', bot);
    h.create(2, DAY + 100, { status: 'pending' }).incoming(2, DAY + 100).botReply(2, DAY + 110, 4).note(2, DAY + 120, x).status(2, DAY + 160, 'resolved', bot);
    h.create(3, 8 * DAY, { status: 'pending' }).incoming(3, 8 * DAY).botReply(3, 8 * DAY + 10, 4).status(3, 8 * DAY + 60, 'resolved', bot);
    h.create(4, 2 * DAY, { assignee_id: x }).incoming(4, 2 * DAY).reply(4, 2 * DAY + 30, x).status(4, 2 * DAY + 90, 'resolved');
    await bus.publish(...h.events);
    await waitForReports(stack, h.events);
  });
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  it('when the bot summary and the bot resolutions are read, then only the resolutions no person took part in count', async () => {
    expect(await get(`/reports/bot_summary?since=${T0}&until=${T0 + 14 * DAY}`)).toEqual({ bot_resolutions_count: 2, bot_handoffs_count: 0, previous: { bot_resolutions_count: 0, bot_handoffs_count: 0 } });
    const summary = await get(`/reports/summary?since=${T0}&until=${T0 + 14 * DAY}`);
    expect(summary).toMatchObject({ resolutions_count: 4, outgoing_messages_count: 4 }); // three bot replies and X's reply; the note is not sent
  });

  it('when grouped by week, then weeks start on Sunday (Chatwoot\'s groupdate), local to timezone_offset', async () => {
    // The window starts on a Monday: its first bucket is the week from the Sunday before.
    expect(await get(`/reports?metric=bot_resolutions_count&since=${T0 + DAY}&until=${T0 + 14 * DAY}&group_by=week`)).toEqual([
      { value: 1, timestamp: T0 },
      { value: 1, timestamp: T0 + 7 * DAY },
    ]);
    expect(await get(`/reports?metric=resolutions_count&since=${T0}&until=${T0 + 14 * DAY}&group_by=week`)).toEqual([
      { value: 3, timestamp: T0 },
      { value: 1, timestamp: T0 + 7 * DAY },
    ]);
    // Five hours west of UTC: local Sunday midnight is 05:00 UTC; the Monday 00:01 UTC resolutions are Sunday evening there.
    expect(await get(`/reports?metric=bot_resolutions_count&since=${T0 + DAY}&until=${T0 + 14 * DAY}&group_by=week&timezone_offset=-5`)).toEqual([
      { value: 1, timestamp: T0 + 5 * 3600 },
      { value: 1, timestamp: T0 + 7 * DAY + 5 * 3600 },
    ]);
  });
});
