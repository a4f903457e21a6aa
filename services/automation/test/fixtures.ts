import type { ContactSnapshot, ConversationSnapshot, Inbox, MessageSnapshot } from '@parley/shared';
import { contactFixture, conversationFixture, inboxFixture, messageFixture } from '@parley/testkit';

/**
 * Records for automation's tests, with the values their payload assertions read (the testkit's
 * contract-checked fixtures underneath; its `startPeerStub` answers them).
 */
export const conversation = (accountId: number, id: number, extra: Partial<ConversationSnapshot> = {}): ConversationSnapshot => conversationFixture(accountId, id, extra);

export const message = (conv: ConversationSnapshot, extra: Partial<MessageSnapshot> = {}): MessageSnapshot => messageFixture(conv, extra);

export function contact(accountId: number, id: number, extra: Partial<ContactSnapshot> = {}): ContactSnapshot {
  return contactFixture(accountId, id, {
    name: 'Jane Doe',
    email: 'jane@example.com',
    phone_number: '+15550001111',
    avatar_url: '',
    additional_attributes: { city: 'Lisbon', country_code: 'PT', company_name: 'Acme' },
    ...extra,
  });
}

export function apiInbox(accountId: number, id: number, extra: Partial<Inbox> = {}): Inbox {
  return inboxFixture(accountId, id, { identifier: `inbox-${id}`, hmac_token: `hmac-${id}-secret`, ...extra });
}

export { agentSnapshot as agent } from '@parley/testkit';
