import type { SeededAccount } from './factories';
import type { client } from './http';
import type { ApiInbox } from './contacts';

type Call = ReturnType<typeof client>;

/** A contact made through the public contact API of the inbox (the contacts service). */
export async function publicContact(call: Call, inbox: ApiInbox, body: Record<string, unknown> = {}): Promise<{ id: number; source_id: string }> {
  const res = await call('POST', `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, { body: { name: 'Visitor', ...body } });
  if (res.status !== 200) throw new Error(`public contact create answered ${res.status}: ${res.text}`);
  return res.body;
}

/** The public path of a contact's conversations. */
export function publicConversationsPath(inbox: ApiInbox, sourceId: string): string {
  return `/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${sourceId}/conversations`;
}

/** A conversation an administrator opens for a new public contact of the inbox. */
export async function conversationFor(call: Call, acc: SeededAccount, inbox: ApiInbox, body: Record<string, unknown> = {}): Promise<any> {
  const contact = await publicContact(call, inbox);
  const res = await call('POST', `/api/v1/accounts/${acc.accountId}/conversations`, { token: acc.admin.token, body: { inbox_id: inbox.id, contact_id: contact.id, ...body } });
  if (res.status !== 200) throw new Error(`conversation create answered ${res.status}: ${res.text}`);
  return res.body;
}
