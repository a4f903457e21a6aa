import type { Actor, Executor, Logger } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { AccountNames } from '../projections/accounts';
import { copiesOf, inboxFor } from '../projections/copies';
import { isChatMessage, lastMessage } from '../projections/last-messages';
import type { PayloadContext } from './payloads';

type Json = Record<string, unknown>;

const id = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** What a payload is about: the conversation, and the message or typist when there is one. */
export interface PayloadSubject {
  inboxId: number | null;
  conversation: Json | null;
  message?: Json | null;
  actor?: Actor | null;
}

/**
 * What a Chatwoot-shaped payload needs beyond the event: the account's name, the inbox, the
 * contact, the assignee, team and senders, and the conversation's last chat message. Each
 * comes from a local projection (one indexed read each), or a read-through to its owner on a
 * miss; a lookup that fails leaves that part minimal rather than holding up delivery.
 */
export class PayloadSources {
  readonly accounts: AccountNames;

  constructor(private readonly deps: { config: AutomationConfig; log: Logger }) {
    this.accounts = new AccountNames(copiesOf(deps).peers, deps.log);
  }

  async context(db: Executor, accountId: number, requestId: string, s: PayloadSubject): Promise<PayloadContext> {
    const conv = s.conversation;
    const conversationId = id(conv?.['id']);
    // The last chat message as stored, or this event's message when it is newer (the store may lag).
    let last = conversationId === null ? null : await lastMessage(db, accountId, conversationId);
    const msg = s.message ?? null;
    if (msg && isChatMessage(msg) && msg['conversation_id'] === conversationId && (last === null || num(last['id']) <= num(msg['id']))) {
      const { conversation: _c, ...rest } = msg;
      last = last !== null && last['id'] === msg['id'] ? { ...rest, updated_at: last['updated_at'] } : rest;
    }

    const users: Array<number | null> = [id(conv?.['assignee_id'])];
    const bots: Array<number | null> = [];
    for (const m of [msg, last]) {
      if (m?.['sender_type'] === 'User') users.push(id(m['sender_id']));
      if (m?.['sender_type'] === 'AgentBot') bots.push(id(m['sender_id']));
    }
    if (s.actor?.type === 'user') users.push(id(s.actor.id));
    if (s.actor?.type === 'agent_bot') bots.push(id(s.actor.id));

    // One after the other: they share the consumer's transaction client, which runs one query at a time.
    // A peer that failed is not asked again for a while (the kit's back-off, shared by every payload this process builds).
    const copies = copiesOf(this.deps).projections;
    const contactId = id(conv?.['contact_id']);
    const accountName = await this.accounts.nameOf(accountId);
    const inbox = s.inboxId === null ? null : await inboxFor(db, this.deps, accountId, s.inboxId, requestId);
    // The contact, agents, bots and team in one read of the copies (misses read through per kind).
    const teamId = id(conv?.['team_id']);
    const refs = await copies.readThroughKinds(db, accountId, { contact: [contactId], agent: users, agent_bot: bots, team: [teamId] }, { requestId });
    const contact = contactId === null ? null : (refs.contact.get(contactId) ?? null);
    const team = teamId === null ? null : (refs.team.get(teamId) ?? null);
    return { accountId, accountName, inbox, contact, agents: refs.agent, bots: refs.agent_bot, team, lastMessage: last };
  }
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
