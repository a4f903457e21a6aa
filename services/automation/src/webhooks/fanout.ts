import { afterCommit, bindingsWithoutActivity, type ConsumerSpec, type EventEnvelope, type Logger, type PoolClient } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { LastMessages } from '../projections/last-messages';
import { inboxFor, inboxFromRow, type ContactSnapshot, type InboxInfo } from '../projections/copies';
import { insertDeliveries, type NewDelivery } from './deliveries-repository';
import type { PayloadSources } from './payload-sources';
import { contactPayload, conversationPayload, inboxPayload, messagePayload, typingPayload, type WebhookEvent } from './payloads';
import { subscribedWebhooks, subscribedWebhooksWithInbox } from './repository';

type Json = Record<string, unknown>;

/** Bus event -> Chatwoot webhook event (reference Op 15, WebhookListener). */
export const WEBHOOK_EVENT_BY_TYPE: Record<string, WebhookEvent> = {
  'conversation.created': 'conversation_created',
  'conversation.updated': 'conversation_updated',
  'conversation.status_changed': 'conversation_status_changed',
  'conversation.typing_on': 'conversation_typing_on',
  'conversation.typing_off': 'conversation_typing_off',
  'message.created': 'message_created',
  'message.updated': 'message_updated',
  'contact.created': 'contact_created',
  'contact.updated': 'contact_updated',
  'inbox.created': 'inbox_created',
  'inbox.updated': 'inbox_updated',
};

/** Events that also go to the API inbox's `webhook_url`, whatever the account webhooks subscribe to. */
const INBOX_EVENTS = new Set<WebhookEvent>(['conversation_created', 'conversation_updated', 'conversation_status_changed', 'conversation_typing_on', 'conversation_typing_off', 'message_created', 'message_updated']);

export interface FanoutDeps {
  config: AutomationConfig;
  log: Logger;
  payloads: PayloadSources;
  /** Called once a batch that wrote deliveries has committed: the process's sender looks for them at once, not at its next poll. */
  deliveriesCommitted?: () => void;
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/**
 * What the events of one batch share: each account's subscribed webhooks and each inbox read
 * once, and the conversations' last messages written in one statement (before a payload reads
 * them back, and at the end).
 */
export class FanoutBatch {
  readonly lastMessages = new LastMessages();
  private readonly hooks = new Map<string, Promise<Array<{ id: number; url: string }>>>();
  private readonly inboxes = new Map<string, Promise<InboxInfo | null>>();

  constructor(private readonly tx: PoolClient) {}

  webhooks(accountId: number, name: WebhookEvent): Promise<Array<{ id: number; url: string }>> {
    const key = `${accountId}:${name}`;
    let p = this.hooks.get(key);
    if (!p) this.hooks.set(key, (p = subscribedWebhooks(this.tx, accountId, name)));
    return p;
  }

  /**
   * The account's webhooks subscribed to `name` and the inbox (`inboxId` null: none), read in
   * one statement when the batch has read neither yet (`webhooks` and `inbox` answer them after).
   */
  async prefetch(deps: FanoutDeps, accountId: number, name: WebhookEvent, inboxId: number | null, requestId: string): Promise<void> {
    const hooksKey = `${accountId}:${name}`;
    const inboxKey = `${accountId}:${inboxId}`;
    if (inboxId === null || this.hooks.has(hooksKey) || this.inboxes.has(inboxKey)) return;
    const { hooks, inboxRow } = await subscribedWebhooksWithInbox(this.tx, accountId, name, inboxId);
    this.hooks.set(hooksKey, Promise.resolve(hooks));
    const inbox = await inboxFromRow(this.tx, deps, accountId, inboxId, inboxRow, requestId);
    this.inboxes.set(inboxKey, Promise.resolve(inbox));
  }

  inbox(deps: FanoutDeps, accountId: number, inboxId: number, requestId: string): Promise<InboxInfo | null> {
    const key = `${accountId}:${inboxId}`;
    let p = this.inboxes.get(key);
    if (!p) this.inboxes.set(key, (p = inboxFor(this.tx, deps, accountId, inboxId, requestId)));
    return p;
  }
}

/**
 * Turns one event into delivery rows: one per account webhook subscribed to it and one for
 * the API inbox's webhook_url, all in the consumer's transaction. Nothing here waits on a
 * receiver: the sender works through the rows on its own, so a slow or dead receiver never
 * holds up the queue, the rules engine or other receivers.
 */
/** Whether an event can make deliveries at all; the others are acked without a transaction. */
export function fansOut(event: EventEnvelope): boolean {
  const name = WEBHOOK_EVENT_BY_TYPE[event.type];
  const accountId = event.account_id ?? num(event.data['account_id']);
  if (!name || accountId === null) return false;
  // Chatwoot never sends activity messages ("Conversation was resolved by ...") to webhooks.
  if (event.type.startsWith('message.') && event.data['message_type'] === 2) return false;
  // contact_updated with nothing changed is skipped, as Chatwoot does.
  if (name === 'contact_updated' && (!event.changes || Object.keys(event.changes).length === 0)) return false;
  return true;
}

export async function fanOut(deps: FanoutDeps, tx: PoolClient, event: EventEnvelope, batch: FanoutBatch = new FanoutBatch(tx)): Promise<void> {
  await fanOutOne(deps, tx, event, batch);
  await batch.lastMessages.flush(tx);
}

async function fanOutOne(deps: FanoutDeps, tx: PoolClient, event: EventEnvelope, batch: FanoutBatch): Promise<void> {
  const name = WEBHOOK_EVENT_BY_TYPE[event.type];
  const accountId = event.account_id ?? num(event.data['account_id']);
  if (!name || accountId === null || !fansOut(event)) return;
  const data = event.data;
  const isMessage = event.type.startsWith('message.');
  const isConversation = event.type.startsWith('conversation.') || isMessage;

  // The conversation's last chat message, for the `messages` of later payloads (kept whether or
  // not anyone subscribes now: a webhook added later gets it right from its first delivery).
  if (isMessage) batch.lastMessages.remember(accountId, event);

  const conversation: Json | null = isMessage ? ((data['conversation'] as Json | undefined) ?? null) : isConversation ? data : null;
  const inboxId = isConversation ? (num(data['inbox_id']) ?? num(conversation?.['inbox_id'])) : null;
  const requestId = event.request_id ?? event.id;

  await batch.prefetch(deps, accountId, name, INBOX_EVENTS.has(name) ? inboxId : null, requestId);
  const hooks = await batch.webhooks(accountId, name);
  let inboxUrl: string | null = null;
  if (INBOX_EVENTS.has(name) && inboxId !== null) {
    const inbox = await batch.inbox(deps, accountId, inboxId, requestId);
    if (inbox?.webhook_url && (inbox.channel_type === null || inbox.channel_type === 'Channel::Api')) inboxUrl = inbox.webhook_url;
  }
  if (hooks.length === 0 && inboxUrl === null) return;

  // The payload reads the conversation's last message back.
  await batch.lastMessages.flush(tx);
  const payload = await buildPayload(deps, tx, event, name, accountId, conversation, inboxId, requestId);
  const rows: NewDelivery[] = hooks.map((h) => ({
    accountId,
    kind: 'webhook',
    webhookId: h.id,
    url: h.url,
    dedupeKey: `event:${event.id}:webhook:${h.id}`,
    event: name,
    sourceEventId: event.id,
    payload,
  }));
  if (inboxUrl !== null && inboxId !== null) {
    rows.push({ accountId, kind: 'inbox', inboxId, url: inboxUrl, dedupeKey: `event:${event.id}:inbox:${inboxId}`, event: name, sourceEventId: event.id, payload });
  }
  const inserted = await insertDeliveries(tx, rows);
  if (inserted > 0 && deps.deliveriesCommitted) afterCommit(tx, deps.deliveriesCommitted);
}

async function buildPayload(
  deps: FanoutDeps,
  tx: PoolClient,
  event: EventEnvelope,
  name: WebhookEvent,
  accountId: number,
  conversation: Json | null,
  inboxId: number | null,
  requestId: string,
): Promise<Json> {
  const data = event.data;
  if (name === 'contact_created' || name === 'contact_updated') {
    return contactPayload(data as unknown as ContactSnapshot, accountId, await deps.payloads.accounts.nameOf(accountId), name, event.changes);
  }
  if (name === 'inbox_created' || name === 'inbox_updated') {
    return inboxPayload(data, await deps.payloads.accounts.nameOf(accountId), name, event.changes);
  }
  const isMessage = name === 'message_created' || name === 'message_updated';
  const pc = await deps.payloads.context(tx, accountId, requestId, { inboxId, conversation, message: isMessage ? data : null, actor: event.actor });
  if (isMessage) return messagePayload(data, pc, name);
  if (name === 'conversation_typing_on' || name === 'conversation_typing_off') {
    const a = event.actor;
    const typist = (a.type === 'user' || a.type === 'contact' || a.type === 'agent_bot') && typeof a.id === 'number' ? { type: a.type, id: a.id } : null;
    return typingPayload(data, pc, name, typist);
  }
  return conversationPayload(data, pc, name, event.changes, name !== 'conversation_created');
}

/**
 * The `automation.webhooks` queue, in batch mode: its effects are all rows in the consumer's
 * transaction (delivery rows, last messages, read-through copies), and the events of a batch
 * are handled in arrival order, so a conversation event sees the message events before it.
 * A batch reads each account's webhooks and each inbox once and writes its last messages
 * together (FanoutBatch).
 */
export function webhooksConsumer(deps: FanoutDeps): ConsumerSpec {
  return {
    name: 'webhooks',
    // Message events but activity messages, which never make a delivery (`fansOut`): the broker
    // does not send those here (their message type header).
    ...bindingsWithoutActivity(Object.keys(WEBHOOK_EVENT_BY_TYPE)),
    wants: fansOut,
    batch: {
      size: deps.config.CONSUMER_BATCH_SIZE,
      maxWaitMs: deps.config.WEBHOOKS_BATCH_WAIT_MS,
      handle: async (tx, events, each) => {
        const batch = new FanoutBatch(tx);
        for (const event of events) await each(event, () => fanOutOne(deps, tx, event, batch));
        await batch.lastMessages.flush(tx);
      },
    },
  };
}
