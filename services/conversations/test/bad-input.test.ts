import { createConversation, createInbox, expectError } from './fixtures';
import { startHarness, type Harness, type TestAccount } from './harness';

/** Inputs Postgres itself would refuse must be 4xx with the Error body, never a 500. */
describe('hostile input (service level)', () => {
  let h: Harness;
  let acc: TestAccount;
  let conv: any;
  const base = () => `/api/v1/accounts/${acc.accountId}`;

  beforeAll(async () => {
    h = await startHarness();
    acc = await h.account();
    const inbox = await createInbox(h, acc);
    conv = await createConversation(h, acc, inbox.id);
  });
  afterAll(() => h?.stop());

  it('when text carries a NUL character, then 400 for a query and 422 for a body', async () => {
    expectError(await h.call('GET', `${base()}/conversations?q=a%00b`, { as: acc.admin }), 400, undefined, 'q');
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/messages`, { as: acc.admin, body: { content: 'a\u0000b' } }), 422, undefined, 'content');
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/custom_attributes`, { as: acc.admin, body: { custom_attributes: { k: 'a\u0000b' } } }), 422, undefined, 'custom_attributes.k');
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/labels`, { as: acc.admin, body: { labels: ['a\u0000'] } }), 422, undefined, 'labels.0');
    expectError(await h.call('POST', `${base()}/canned_responses`, { as: acc.admin, body: { short_code: 'x\u0000', content: 'y' } }), 422, undefined, 'short_code');
  });

  it('when bodies have the wrong shape, then 422', async () => {
    expectError(await h.call('POST', `${base()}/conversations`, { as: acc.admin, body: [] }), 422);
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/toggle_status`, { as: acc.admin, body: { status: 'snoozed', snoozed_until: -5 } }), 422, undefined, 'snoozed_until');
    expectError(await h.call('POST', `${base()}/conversations/${conv.id}/assignments`, { as: acc.admin, body: { assignee_id: 99_999_999_999 } }), 422, undefined, 'assignee_id');
    expectError(await h.call('GET', `${base()}/conversations/99999999999`, { as: acc.admin }), 404);
    expectError(await h.call('GET', `${base()}/conversations?labels[][a]=1`, { as: acc.admin }), 400);
  });
});
