import { peersAndProjections, type Executor, type Inbox, type Logger, type Peers, type ProjectionKit, type PushAgent, type PushContact } from '@parley/shared';
import type { AutomationConfig } from '../config';

/** ContactSnapshot (docs/contracts.md), as far as payloads and rules read it (copies older than the contract may lack fields). */
export interface ContactSnapshot extends PushContact {
  availability_status?: string | null;
  last_activity_at?: number | null;
  created_at?: number | null;
}

/** The gateway's `Agent` (docs/contracts.md): an assignee or a message's user sender. */
export interface AgentRecord extends PushAgent {
  email?: string | null;
}

/** The gateway's `Team`. */
export interface TeamRecord {
  id: number;
  name?: string | null;
}

/** The gateway's agent bot: a message's bot sender. */
export interface BotRecord {
  id: number;
  name?: string | null;
  thumbnail?: string | null;
}

/** What webhooks need of an inbox: its name, and for API inboxes the webhook_url and the secret that signs it. */
export interface InboxInfo {
  id: number;
  name: string | null;
  channel_type: string | null;
  webhook_url: string | null;
  secret: string | null;
}

interface Copies {
  peers: Peers;
  projections: ProjectionKit;
}
const wired = new WeakMap<AutomationConfig, Copies>();

/**
 * This service's peers client and projection kit (contacts, agents, teams, agent bots and
 * inboxes): one per running service, so every reader shares the kit's back-off after a peer failed.
 */
export function copiesOf(deps: { config: AutomationConfig; log: Logger }): Copies {
  let c = wired.get(deps.config);
  if (!c) {
    c = peersAndProjections({ service: 'automation', config: deps.config, log: deps.log });
    wired.set(deps.config, c);
  }
  return c;
}

type Deps = { config: AutomationConfig; log: Logger };

/**
 * The contact, read through to the contacts service on a miss (a contact created a moment ago
 * may not have reached the copies yet). `strict`: an unreachable contacts service throws (rules
 * must not be evaluated on a guess, the event is retried); otherwise it yields null (payloads go
 * out with a minimal sender).
 */
export function contactFor(db: Executor, deps: Deps, accountId: number, contactId: number, requestId: string, opts: { strict?: boolean } = {}): Promise<ContactSnapshot | null> {
  return copiesOf(deps).projections.readOne(db, 'contact', accountId, contactId, { requestId, strict: opts.strict });
}

function inboxInfo(i: Partial<Inbox> & { id: number }): InboxInfo {
  return { id: i.id, name: i.name ?? null, channel_type: i.channel_type ?? null, webhook_url: i.webhook_url || null, secret: i.hmac_token || null };
}

/**
 * The inbox, read through to the conversations service on a miss. An unknown inbox is
 * remembered (a tombstone any inbox event replaces); an unreachable owner yields null
 * (`strict`: throws instead, for callers that must not guess, like validating a webhook's inbox_id).
 */
export async function inboxFor(db: Executor, deps: Deps, accountId: number, inboxId: number, requestId: string, opts: { strict?: boolean } = {}): Promise<InboxInfo | null> {
  const inbox = await copiesOf(deps).projections.readOne(db, 'inbox', accountId, inboxId, { requestId, strict: opts.strict, rememberMisses: true });
  return inbox ? inboxInfo(inbox) : null;
}

/** `inboxFor` when the copy's row was read already (`row`: null when there is none): a missing one is read through and remembered as inboxFor does. */
export async function inboxFromRow(db: Executor, deps: Deps, accountId: number, inboxId: number, row: { kind: string; id: number; data: unknown } | null, requestId: string): Promise<InboxInfo | null> {
  const copies = await copiesOf(deps).projections.completeKinds(db, accountId, { inbox: [inboxId] }, row ? [row] : [], { requestId, rememberMisses: true });
  const inbox = copies.inbox.get(inboxId);
  return inbox ? inboxInfo(inbox) : null;
}

/** Names of the given inboxes from the copies (for `inbox: {id, name}` in webhook answers). */
export async function inboxNames(db: Executor, deps: Deps, accountId: number, ids: number[]): Promise<Map<number, string | null>> {
  const inboxes = await copiesOf(deps).projections.readMany(db, 'inbox', accountId, ids);
  return new Map([...inboxes].map(([id, i]) => [id, i.name ?? null]));
}
