import { uniq, waitFor } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount } from '../../support/factories';
import { client, expectErrorBody } from '../../support/http';
import { createApiInbox, identifierHash, type ApiInbox } from '../../support/contacts';

/**
 * Issue 4's "done when" across both services: a client creates its contact on the public API
 * (with and without a valid identifier_hash), opens a conversation and writes; agents see
 * whether the contact inbox is verified; deleting the contact removes its conversations.
 */
describe('public contacts and their conversations through the gateway', () => {
  let stack: Stack;
  let call: ReturnType<typeof client>;
  let acc: SeededAccount;
  let inbox: ApiInbox;

  beforeAll(async () => {
    stack = await startStack();
    call = client(stack.gatewayUrl);
    acc = await seedAccount(stack);
    inbox = await createApiInbox(call, acc);
  });
  afterAll(() => stack?.stop());

  const pub = (rest: string) => `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts${rest}`;

  /** A contact, a conversation it opened and a message it wrote, all through the public API. */
  async function clientSession(body: Record<string, unknown>): Promise<{ contactId: number; sourceId: string; conversationId: number }> {
    const contact = await call('POST', pub(''), { body });
    expect({ status: contact.status, text: contact.text }).toMatchObject({ status: 200 });
    const sourceId: string = contact.body.source_id;
    const conversation = await call('POST', pub(`/${sourceId}/conversations`), { body: {} });
    expect({ status: conversation.status, text: conversation.text }).toMatchObject({ status: 200 });
    const conversationId: number = conversation.body.id;
    const message = await call('POST', pub(`/${sourceId}/conversations/${conversationId}/messages`), { body: { content: `hello from ${body['name'] ?? 'someone'}` } });
    expect({ status: message.status, text: message.text }).toMatchObject({ status: 200 });
    return { contactId: contact.body.id, sourceId, conversationId };
  }

  async function listed(conversationId: number): Promise<any | undefined> {
    const res = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations?status=all`, { token: acc.admin.token });
    expect(res.status).toBe(200);
    return res.body.data.payload.find((c: any) => c.id === conversationId);
  }

  it('when a client with a valid identifier_hash opens a conversation and writes, then agents see it verified and the contact active', async () => {
    const identifier = uniq('user');
    const s = await clientSession({ identifier, identifier_hash: identifierHash(inbox, identifier), name: 'Verified Vera' });
    const conv = await waitFor(() => listed(s.conversationId), { what: 'conversation listed' });
    expect(conv.meta).toMatchObject({ hmac_verified: true, sender: { id: s.contactId, name: 'Verified Vera', identifier } });
    const shown = await call('GET', pub(`/${s.sourceId}/conversations/${s.conversationId}`));
    expect(shown.status).toBe(200);
    expect(shown.body.messages.map((m: any) => m.content)).toContain('hello from Verified Vera');
    // The contact's own message is its latest activity.
    await waitFor(async () => (await call('GET', `/api/v1/accounts/${acc.accountId}/contacts/${s.contactId}`, { token: acc.agent.token })).body.payload.last_activity_at > 0, {
      what: 'contact activity',
    });
  });

  it('when a client without an identifier_hash does the same, then the conversation is not verified', async () => {
    const s = await clientSession({ name: 'Anonymous Ann', email: `${uniq('ann')}@acme.test` });
    const conv = await waitFor(() => listed(s.conversationId), { what: 'conversation listed' });
    expect(conv.meta).toMatchObject({ hmac_verified: false, sender: { id: s.contactId, name: 'Anonymous Ann' } });
  });

  it('when an administrator deletes the contact, then its conversations disappear', async () => {
    const s = await clientSession({ name: 'Leaving Lee', email: `${uniq('lee')}@acme.test` });
    const other = await clientSession({ name: 'Staying Sam', email: `${uniq('sam')}@acme.test` });
    await waitFor(() => listed(s.conversationId), { what: 'conversation listed' });
    const del = await call('DELETE', `/api/v1/accounts/${acc.accountId}/contacts/${s.contactId}`, { token: acc.admin.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({});
    await waitFor(async () => (await listed(s.conversationId)) === undefined, { what: 'conversation removed' });
    const gone = await call('GET', `/api/v1/accounts/${acc.accountId}/conversations/${s.conversationId}`, { token: acc.admin.token });
    expect(gone.status).toBe(404);
    expectErrorBody(gone.body, 'not_found');
    const publicGone = await call('GET', pub(`/${s.sourceId}/conversations/${s.conversationId}`));
    expect(publicGone.status).toBe(404);
    expectErrorBody(publicGone.body);
    // Someone else's conversation is untouched.
    expect(await listed(other.conversationId)).toBeDefined();
  });
});
