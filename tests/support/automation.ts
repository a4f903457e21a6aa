import { randomBytes } from 'node:crypto';
import type { SeededAccount } from './factories';
import type { client } from './http';

type Call = ReturnType<typeof client>;

/** An API inbox made by the account's administrator, optionally with a webhook_url. */
export async function apiInboxWithWebhook(call: Call, acc: SeededAccount, webhookUrl?: string): Promise<{ id: number; inbox_identifier: string; hmac_token: string }> {
  const res = await call('POST', `/api/v1/accounts/${acc.accountId}/inboxes`, {
    token: acc.admin.token,
    body: { name: `Website ${randomBytes(3).toString('hex')}`, channel: { type: 'api', ...(webhookUrl ? { webhook_url: webhookUrl } : {}) } },
  });
  if (res.status !== 200) throw new Error(`inbox create answered ${res.status}: ${res.text}`);
  return res.body;
}

export interface PublicConversation {
  conversationId: number;
  sourceId: string;
  /** Sends an incoming message as the contact, through the public client API. */
  send(content: string): Promise<{ id: number }>;
}

/** A contact and a conversation in the inbox, the way a website widget makes them (SPEC 5, 14). */
export async function publicConversation(call: Call, inboxIdentifier: string): Promise<PublicConversation> {
  const base = `/public/api/v1/inboxes/${inboxIdentifier}`;
  const contact = await call('POST', `${base}/contacts`, { body: { name: 'Rita Refund', email: `rita-${randomBytes(4).toString('hex')}@example.com` } });
  if (contact.status !== 200) throw new Error(`public contact create answered ${contact.status}: ${contact.text}`);
  const sourceId: string = contact.body.source_id;
  const conv = await call('POST', `${base}/contacts/${sourceId}/conversations`, { body: {} });
  if (conv.status !== 200) throw new Error(`public conversation create answered ${conv.status}: ${conv.text}`);
  const conversationId: number = conv.body.id;
  return {
    conversationId,
    sourceId,
    async send(content) {
      const msg = await call('POST', `${base}/contacts/${sourceId}/conversations/${conversationId}/messages`, { body: { content } });
      if (msg.status !== 200) throw new Error(`public message create answered ${msg.status}: ${msg.text}`);
      return msg.body;
    },
  };
}

/** A rule through the gateway; fails the test unless it is created. */
export async function createRule(call: Call, acc: SeededAccount, body: Record<string, unknown>): Promise<any> {
  const res = await call('POST', `/api/v1/accounts/${acc.accountId}/automation_rules`, { token: acc.admin.token, body });
  if (res.status !== 200) throw new Error(`rule create answered ${res.status}: ${res.text}`);
  return res.body.payload[0];
}

export async function runsOf(call: Call, acc: SeededAccount, ruleId: number): Promise<any[]> {
  const res = await call('GET', `/api/v1/accounts/${acc.accountId}/automation_rules/${ruleId}/runs`, { token: acc.admin.token });
  if (res.status !== 200) throw new Error(`runs answered ${res.status}: ${res.text}`);
  return res.body.payload;
}
