import {
  accountOf, contactPushData, defineConsumer, type ConsumerSpec, type ConversationSnapshot, type EventEnvelope, type Logger, type Peers, type ProjectionKit,
} from '@parley/shared';
import type { PoolClient } from 'pg';
import type { Grants } from '../auth/grants';
import type { RealtimeMetrics } from '../metrics';
import type { EntryBody, EventEntry, StreamLog } from '../streams/log';
import { PushPayloads } from './payloads';
import { BatchCache } from './batch';
import { claimFirstReply, createdMs, keepSourceId, readStates, recordMessageWithCopies, touchCacheKey, type CacheKey, type ConversationState } from './state';

export interface FanoutDeps {
  streamLog: StreamLog;
  projections: ProjectionKit;
  /** Owners asked for what no event told: a team's members (team mentions), a contact inbox's source id. */
  peers: Peers;
  grants: Grants;
  metrics: RealtimeMetrics;
  log: Logger;
  /** After an owner failed to answer, it is not asked again for this long (PEER_LOOKUP_BACKOFF_MS). */
  lookupBackoffMs: number;
}

type Entry = { stream: string; body: EntryBody };

/** Who gets a conversation event (the reference's table): `agents` (inbox members and administrators) and maybe the contact. */
function conversationEntries(log: StreamLog, conv: ConversationSnapshot, event: string, data: Record<string, unknown>, toContact: boolean, except?: EventEntry['except']): Entry[] {
  // Literals, not `{ ...base, inbox_id }`: an object spread given new properties is slow on
  // Node 20's V8 (docs/architecture.md, "Runtime"), and this runs for every conversation event.
  const body = (extra: { inbox_id?: number; contact_inbox_id?: number }): EventEntry =>
    except ? { kind: 'event', event, data, except, ...extra } : { kind: 'event', event, data, ...extra };
  const out: Entry[] = [{ stream: log.accountStream(conv.account_id), body: body({ inbox_id: conv.inbox_id }) }];
  if (toContact && conv.contact_id !== null) {
    out.push({ stream: log.contactStream(conv.account_id, conv.contact_id), body: body(conv.contact_inbox_id !== null ? { contact_inbox_id: conv.contact_inbox_id } : {}) });
  }
  return out;
}

/** Users or teams a private note mentions (Chatwoot's `mention://user/<id>/<name>` and `mention://team/<id>/<name>` links). */
function mentioned(content: string | null, kind: 'user' | 'team'): number[] {
  const ids = new Set<number>();
  for (const m of (content ?? '').matchAll(kind === 'user' ? /mention:\/\/user\/(\d{1,10})\//g : /mention:\/\/team\/(\d{1,10})\//g)) ids.add(Number(m[1]));
  return [...ids].filter((id) => id > 0 && id <= 2_147_483_647);
}

function typistOf(event: EventEnvelope): { type: 'user' | 'contact'; id: number } | null {
  const { type, id } = event.actor;
  return (type === 'user' || type === 'contact') && typeof id === 'number' ? { type, id } : null;
}

/**
 * The durable queue `realtime.fanout`: turns domain events into entries of the stream log
 * (the account's stream for its users, a contact's stream for that contact's sessions), once
 * per event id, and keeps the copies its payloads name. Changes to who may see what (an agent
 * removed, inbox membership, a user token rotated, a contact deleted) go into the log as control entries, so every
 * replica applies them to its own subscriptions, and drop the cached token checks.
 */
export function fanoutConsumer(deps: FanoutDeps): FanoutConsumer {
  const { streamLog: log, projections, grants } = deps;
  const payloads = new PushPayloads(projections, deps.peers, deps.log, deps.lookupBackoffMs);
  // What the batch being handled appends: it goes to Redis in one round trip once every event of
  // the batch is handled (before the commit), and never if one fails (the batch is rolled back).
  let pending: Array<{ eventId: string; entries: Entry[] }> = [];
  const append = async (event: EventEnvelope, entries: Entry[]) => {
    pending.push({ eventId: event.id, entries });
  };
  const appendPending = async () => {
    const batch = pending;
    pending = [];
    const fresh = await log.appendMany(batch);
    for (const [i, isNew] of fresh.entries()) if (isNew) deps.metrics.appended.inc(batch[i]?.entries.length ?? 0);
  };
  const handle = async (tx: PoolClient, events: EventEnvelope[], handleOne: (tx: PoolClient, event: EventEnvelope) => Promise<void>) => {
    pending = [];
    try {
      payloads.cache = await BatchCache.prefetch(tx, projections, events, readStates);
      for (const event of events) await handleOne(tx, event);
      await payloads.cache?.flush(tx);
      await appendPending();
    } finally {
      pending = [];
      payloads.cache = null;
    }
  };
  const control = (accountId: number, body: Omit<Extract<EntryBody, { kind: 'control' }>, 'kind'>): Entry => ({ stream: log.accountStream(accountId), body: { kind: 'control', ...body } });

  const spec = defineConsumer('fanout', (on) => {
    on(['message.created', 'message.updated'], async (tx: PoolClient, msg, event) => {
      const conv = msg.conversation;
      const created = event.type === 'message.created';
      const requestId = event.request_id ?? undefined;
      // Contacts never get private notes or activity messages.
      const chat = !msg.private && msg.message_type !== 2;
      // Chatwoot's `messages.chat.last` (what conversation push data shows as `messages`) and the
      // incoming messages its unread count counts, kept before the payloads read them.
      const { conversation: _conversation, ...message } = msg;
      const incoming = created && msg.message_type === 0;
      const inBatch = payloads.cache?.recordMessage(conv, msg, { last: chat ? message : null, incoming: incoming ? [msg.id, createdMs(msg)] : null });
      // Alone (no batch cache), the write of the state reads the copies the payload names with it.
      const recorded = inBatch ? null : await recordMessageWithCopies(tx, conv.account_id, conv.id, conv.contact_inbox_id, msg, { last: chat ? message : null, incoming }, payloads.messageCopies(msg, event.actor));
      const state = await payloads.withSource(tx, conv, inBatch ?? (recorded as { state: ConversationState }).state);
      const data = await payloads.message(tx, msg, state, created ? null : event.changes, event.actor, requestId, recorded?.copies);
      const entries = conversationEntries(log, conv, event.type, data, chat);
      if (created) {
        let convData: Record<string, unknown> | undefined;
        const conversationPayload = async () => (convData ??= await payloads.conversation(tx, conv, event.actor, requestId, state));
        // The first human reply (the conversations service stamps first_reply_created_at with it): agents, once.
        const human = msg.message_type === 1 && !msg.private && msg.sender_type === 'User' && !msg.content_attributes?.['automation_rule_id'];
        if (human && conv.first_reply_created_at !== null && conv.first_reply_created_at === msg.created_at && (await claimFirstReply(tx, conv.account_id, conv.id))) {
          entries.push(...conversationEntries(log, conv, 'first.reply.created', await conversationPayload(), false));
        }
        // A private note that mentions users or teams: `conversation.mentioned` to each user, a
        // team's members for a team (Chatwoot's Messages::MentionService), if they may see the inbox.
        const users = new Set(msg.private ? mentioned(msg.content, 'user') : []);
        for (const teamId of msg.private ? mentioned(msg.content, 'team') : []) for (const userId of await payloads.teamMembers(conv.account_id, teamId, requestId)) users.add(userId);
        for (const userId of users) entries.push({ stream: log.accountStream(conv.account_id), body: { kind: 'event', event: 'conversation.mentioned', data: await conversationPayload(), inbox_id: conv.inbox_id, only_user: userId } });
      }
      await append(event, entries);
    });

    on(['conversation.created', 'conversation.updated', 'conversation.status_changed'], async (tx, conv, event) => {
      await append(event, conversationEntries(log, conv, event.type, await payloads.conversation(tx, conv, event.actor, event.request_id ?? undefined), true));
    });

    on(['conversation.read', 'assignee.changed', 'team.changed'], async (tx, conv, event) => {
      await append(event, conversationEntries(log, conv, event.type, await payloads.conversation(tx, conv, event.actor, event.request_id ?? undefined), false));
    });

    on('contact_inbox.created', async (tx, ci) => {
      await keepSourceId(tx, ci.account_id, ci.id, ci.source_id);
    });

    on(['conversation.typing_on', 'conversation.typing_off'], async (tx, typing, event) => {
      const { is_private, ...conv } = typing;
      const typist = typistOf(event);
      const data = await payloads.typing(tx, conv, is_private, typist, event.request_id ?? undefined);
      await append(event, conversationEntries(log, conv, event.type, data, true, typist ?? undefined));
    });

    on(['contact.created', 'contact.updated', 'contact.merged'], async (tx, contact, event) => {
      await projections.apply(tx, 'contact', event);
      if ('merged_contact_id' in contact) await projections.remove(tx, 'contact', contact.account_id, contact.merged_contact_id, event.occurred_at);
      await append(event, [{ stream: log.accountStream(contact.account_id), body: { kind: 'event', event: event.type, data: { ...contactPushData(contact), account_id: contact.account_id } } }]);
    });

    on('contact.deleted', async (tx, contact, event) => {
      await projections.remove(tx, 'contact', contact.account_id, contact.id, event.occurred_at);
      await grants.forgetContact(contact.account_id, contact.id);
      await append(event, [
        { stream: log.accountStream(contact.account_id), body: { kind: 'event', event: event.type, data: { ...contactPushData(contact), account_id: contact.account_id } } },
        { stream: log.contactStream(contact.account_id, contact.id), body: { kind: 'control', action: 'revoke_contact', contact_id: contact.id } },
      ]);
    });

    on(['agent.added', 'agent.updated'], async (tx, agent, event) => {
      await projections.apply(tx, 'agent', event);
      if (event.type === 'agent.updated' && event.changes && 'role' in event.changes) {
        await grants.forgetUser(agent.account_id, agent.id);
        await append(event, [control(agent.account_id, { action: 'user_role', user_id: agent.id, role: agent.role })]);
      }
    });

    on('agent.removed', async (tx, agent, event) => {
      await projections.remove(tx, 'agent', agent.account_id, agent.id, event.occurred_at);
      await grants.forgetUser(agent.account_id, agent.id);
      await append(event, [control(agent.account_id, { action: 'revoke_user', user_id: agent.id })]);
    });

    // A rotated token (password change): subscriptions made with the old one end on every replica.
    on('user.pubsub_token_rotated', async (_tx, rotated, event) => {
      for (const accountId of rotated.account_ids) await grants.forgetUser(accountId, rotated.id);
      await append(event, rotated.account_ids.map((accountId) => control(accountId, { action: 'revoke_token', user_id: rotated.id, token_sha256: rotated.revoked_token_sha256 })));
    });

    on(['inbox_member.added', 'inbox_member.removed'], async (_tx, member, event) => {
      const accountId = accountOf(event);
      await grants.forgetUser(accountId, member.user_id);
      await append(event, [control(accountId, { action: event.type === 'inbox_member.added' ? 'inbox_added' : 'inbox_removed', user_id: member.user_id, inbox_id: member.inbox_id })]);
    });

    on('account.deleted', async (tx, account, event) => {
      await projections.removeAccount(tx, account.id);
      await append(event, [control(account.id, { action: 'revoke_all' })]);
    });

    on('user.updated', async (tx, user, event) => {
      await projections.patchUser(tx, user, event.occurred_at);
    });
    // Labels, inboxes and teams: `account.cache_invalidated` with the account's cache keys to its
    // users (Chatwoot's AccountCacheRevalidator on Label, Inbox and Team), so clients refetch them.
    const invalidated = async (tx: PoolClient, event: EventEnvelope, key: CacheKey) => {
      const accountId = accountOf(event);
      const cacheKeys = await touchCacheKey(tx, accountId, key, event.occurred_at);
      return { stream: log.accountStream(accountId), body: { kind: 'event' as const, event: 'account.cache_invalidated', data: { cache_keys: cacheKeys, account_id: accountId } } };
    };
    on(['label.created', 'label.updated', 'label.deleted'], async (tx, _label, event) => {
      await append(event, [await invalidated(tx, event, 'label')]);
    });
    on(['team.created', 'team.updated'], async (tx, _team, event) => {
      await projections.apply(tx, 'team', event);
      await append(event, [await invalidated(tx, event, 'team')]);
    });
    on('team.deleted', async (tx, team, event) => {
      await projections.remove(tx, 'team', team.account_id, team.id, event.occurred_at);
      await append(event, [await invalidated(tx, event, 'team')]);
    });
    on(['inbox.created', 'inbox.updated'], async (tx, _inbox, event) => {
      await projections.apply(tx, 'inbox', event);
      await append(event, [await invalidated(tx, event, 'inbox')]);
    });
    on('inbox.deleted', async (tx, inbox, event) => {
      await projections.remove(tx, 'inbox', inbox.account_id, inbox.id, event.occurred_at);
      await append(event, [await invalidated(tx, event, 'inbox')]);
    });
    on(['agent_bot.created', 'agent_bot.updated'], async (tx, bot, event) => {
      if (bot.account_id !== null) await projections.upsert(tx, 'agent_bot', bot.account_id, bot.id, bot, event.occurred_at);
    });
    on('agent_bot.deleted', async (tx, bot, event) => {
      if (bot.account_id !== null) await projections.remove(tx, 'agent_bot', bot.account_id, bot.id, event.occurred_at);
    });
  });
  return { spec, handleBatch: (tx, events) => handle(tx, events, spec.handle as (tx: PoolClient, event: EventEnvelope) => Promise<void>) };
}

/** The fan-out's consumer (its name and bindings) and its batch handler: each event's handler in turn, then the batch's appends at once. */
export interface FanoutConsumer {
  spec: ConsumerSpec;
  handleBatch(tx: PoolClient, events: EventEnvelope[]): Promise<void>;
}
