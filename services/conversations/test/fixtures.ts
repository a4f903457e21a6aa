import type { Harness, TestAccount } from './harness';

export function expectError(res: { status: number; body: any }, status: number, code?: string, field?: string): void {
  expect(res.status).toBe(status);
  expect(typeof res.body?.description).toBe('string');
  expect(Array.isArray(res.body?.errors)).toBe(true);
  expect(res.body.errors.length).toBeGreaterThan(0);
  if (code) expect(res.body.errors.map((e: any) => e.code)).toContain(code);
  if (field !== undefined) expect(res.body.errors.map((e: any) => e.field)).toContain(field);
}

export async function createInbox(h: Harness, acc: TestAccount, body: Record<string, unknown> = {}): Promise<any> {
  const res = await h.call('POST', `/api/v1/accounts/${acc.accountId}/inboxes`, { as: acc.admin, body: { name: 'Support', ...body } });
  if (res.status !== 200) throw new Error(`inbox create failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function addMember(h: Harness, acc: TestAccount, inboxId: number, userId: number): Promise<void> {
  const res = await h.call('POST', `/api/v1/accounts/${acc.accountId}/inbox_members`, { as: acc.admin, body: { inbox_id: inboxId, user_ids: [userId] } });
  if (res.status !== 200) throw new Error(`member add failed: ${res.status} ${res.text}`);
}

/** A conversation of a new stub contact in the inbox. */
export async function createConversation(h: Harness, acc: TestAccount, inboxId: number, body: Record<string, unknown> = {}, as = acc.admin): Promise<any> {
  const contact = h.stub.addContact(acc.accountId);
  const res = await h.call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { as, body: { inbox_id: inboxId, contact_id: contact.id, ...body } });
  if (res.status !== 200) throw new Error(`conversation create failed: ${res.status} ${res.text}`);
  return res.body;
}
