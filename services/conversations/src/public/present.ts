import { unixSeconds, type Executor } from '@parley/shared';
import type { ContactSnapshot } from '../common/peers';
import type { ConversationRow, MessageRow } from '../common/rows';
import { attachmentData, loadRefs, senderData, type AttachmentBase, type Refs } from '../conversations/presenter';
import type { PublicMessageResponse } from '../messages/schemas';
import type { Projections } from '../projections/store';
import { chatMessages, type PublicScope } from './service';
import type { PublicContactResponse, PublicConversationResponse } from './schemas';

const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const isoOf = (v: unknown): string | null =>
  typeof v === 'number' && v > 0 ? new Date(v * 1000).toISOString() : typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : null;

/** The contact as Chatwoot's public API renders it (the raw record, ISO timestamps). */
export function publicContactData(c: ContactSnapshot): PublicContactResponse {
  const labels = c['label_list'] ?? c['labels'];
  return {
    id: c.id,
    account_id: c.account_id,
    company_id: typeof c['company_id'] === 'number' ? (c['company_id'] as number) : null,
    name: strOrNull(c.name),
    email: strOrNull(c.email),
    phone_number: strOrNull(c.phone_number),
    identifier: strOrNull(c.identifier),
    contact_type: strOrNull(c['contact_type']),
    country_code: strOrNull(c['country_code']),
    last_name: strOrNull(c['last_name']),
    middle_name: strOrNull(c['middle_name']),
    location: strOrNull(c['location']),
    last_activity_at: isoOf(c.last_activity_at),
    created_at: isoOf(c.created_at),
    updated_at: isoOf(c['updated_at']) ?? isoOf(c.created_at),
    blocked: c.blocked === true,
    additional_attributes: c.additional_attributes ?? {},
    custom_attributes: c.custom_attributes ?? {},
    label_list: Array.isArray(labels) ? labels.filter((l): l is string => typeof l === 'string') : [],
  };
}

/** Attachments are fetched through the same public path the contact already uses. */
export function publicAttachmentUrl(scope: PublicScope, displayId: number): AttachmentBase {
  return (m, a) =>
    `/public/api/v1/inboxes/${scope.inbox.identifier}/contacts/${encodeURIComponent(scope.contactInbox.source_id)}/conversations/${displayId}/messages/${m}/attachments/${a}`;
}

export function publicMessageData(m: MessageRow, conv: ConversationRow, refs: Refs, scope: PublicScope): PublicMessageResponse {
  const out: PublicMessageResponse = {
    id: Number(m.id),
    content: m.content,
    message_type: m.message_type,
    content_type: m.content_type,
    content_attributes: m.content_attributes,
    created_at: unixSeconds(m.created_at),
    conversation_id: conv.display_id,
    attachments: attachmentData(m, publicAttachmentUrl(scope, conv.display_id)),
  };
  const sender = senderData(m, refs);
  if (sender) out.sender = sender;
  return out;
}

/** `ownOnly`: the messages are the scope's contact's own (just sent): the contact the scope holds is their sender, no copy is read. */
export async function presentPublicMessages(db: Executor, projections: Projections, scope: PublicScope, conv: ConversationRow, messages: MessageRow[], opts: { ownOnly?: boolean } = {}): Promise<PublicMessageResponse[]> {
  const known = opts.ownOnly ? { copies: [{ kind: 'contact', id: scope.contact.id, data: scope.contact }], myTeams: new Set<number>() } : undefined;
  const refs = await loadRefs(db, projections, scope.ctx, scope.inbox.account_id, [], messages, known);
  return messages.map((m) => publicMessageData(m, conv, refs, scope));
}

/** SPEC "Conversation (public API)": the chat messages, oldest first, unpaginated (Chatwoot). */
export async function presentPublicConversations(db: Executor, projections: Projections, scope: PublicScope, convs: ConversationRow[]): Promise<PublicConversationResponse[]> {
  const messages = await chatMessages(db, convs.map((c) => c.id));
  const refs = await loadRefs(db, projections, scope.ctx, scope.inbox.account_id, [], messages);
  const byConv = new Map<string, MessageRow[]>();
  for (const m of messages) byConv.set(String(m.conversation_id), [...(byConv.get(String(m.conversation_id)) ?? []), m]);
  const contact = publicContactData(scope.contact);
  return convs.map((c) => ({
    id: c.display_id,
    uuid: c.uuid,
    inbox_id: c.inbox_id,
    contact_last_seen_at: unixSeconds(c.contact_last_seen_at),
    agent_last_seen_at: unixSeconds(c.agent_last_seen_at),
    status: c.status,
    messages: (byConv.get(String(c.id)) ?? []).map((m) => publicMessageData(m, c, refs, scope)),
    contact,
  }));
}
