import { waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox } from '../../support/contacts';
import { conversationFor } from '../../support/conversations';

/** The real producer: what the conversations service publishes reaches the reports. */
describe('reports fed by the conversations service', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;

  beforeAll(async () => {
    stack = await startStack({ only: ['conversations', 'contacts', 'reports'] });
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
  });
  afterAll(() => stack?.stop());

  it('when a customer writes, an agent adds a note, replies and resolves, then the summary counts one of each and the agent gets the times', async () => {
    const A = `/api/v1/accounts/${acc.accountId}`;
    const inbox = await createApiInbox(call, acc);
    const since = Math.floor(Date.now() / 1000) - 60;
    const conv = await conversationFor(call, acc, inbox, { assignee_id: acc.admin.userId, message: { content: 'help please', message_type: 'incoming' } });
    const agent = { token: acc.admin.token }; // an administrator works the conversation (agents need inbox membership)
    expect((await call('POST', `${A}/conversations/${conv.id}/messages`, { ...agent, body: { content: 'looking', private: true } })).status).toBe(200);
    expect((await call('POST', `${A}/conversations/${conv.id}/messages`, { ...agent, body: { content: 'done' } })).status).toBe(200);
    expect((await call('POST', `${A}/conversations/${conv.id}/toggle_status`, { ...agent, body: { status: 'resolved' } })).status).toBe(200);
    const window = `since=${since}&until=${since + 3600}`;
    const summary = await waitFor(
      async () => {
        const s = (await call('GET', `/api/v2/accounts/${acc.accountId}/reports/summary?${window}`, { token: acc.admin.token })).body;
        return s?.resolutions_count === 1 && s?.reply_time !== null ? s : null;
      },
      { what: 'the conversation in the reports', timeoutMs: 30_000 },
    );
    expect(summary).toMatchObject({ conversations_count: 1, incoming_messages_count: 1, outgoing_messages_count: 1, resolutions_count: 1 });
    for (const key of ['avg_first_response_time', 'reply_time', 'avg_resolution_time']) {
      expect(summary[key]).toBeGreaterThanOrEqual(0);
      expect(summary[key]).toBeLessThan(60);
    }
    const mine = (await call('GET', `/api/v2/accounts/${acc.accountId}/reports/summary?${window}&type=agent&id=${acc.admin.userId}`, { token: acc.admin.token })).body;
    expect(mine).toMatchObject({ conversations_count: 1, outgoing_messages_count: 1, resolutions_count: 1, avg_first_response_time: summary.avg_first_response_time });
  });
});
