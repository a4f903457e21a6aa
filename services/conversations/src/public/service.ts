import { AppError, NotFoundError, PROJECTION_TABLE, prepared, sqlPrepared, withTransaction, withTransactionFrom, type Executor, type Peers, type PoolClient, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { ContactInbox, ContactSnapshot } from '../common/peers';
import { CONVERSATION_COLUMNS, INBOX_COLUMNS, type ConversationRow, type InboxRow, type MessageRow } from '../common/rows';
import { findInboxByIdentifier } from '../inboxes/repository';
import type { Projections } from '../projections/store';

const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** Who is calling the public API, once the path named a real inbox and contact inbox. */
export interface PublicScope {
  inbox: InboxRow;
  contact: ContactSnapshot;
  /** The path's contact inbox (`hmac_verified` widens the scope to the contact's every conversation). */
  contactInbox: Pick<ContactInbox, 'id' | 'source_id' | 'hmac_verified'>;
  /** The request context with the inbox's account and the contact as actor. */
  ctx: RequestContext;
}

type ScopeDeps = { pool: Pool; peers: Peers; projections: Projections };

/** The path parameters of a request about one conversation. */
export interface ConversationPath {
  inbox_identifier: string;
  contact_identifier: string;
  conversation_id: number;
}

const validSourceId = (sourceId: string | undefined): sourceId is string => !!sourceId && sourceId.length <= 255 && !sourceId.includes('\u0000');

/** The inbox named by the path; unknown identifiers are 404 (Chatwoot). */
export async function inboxByIdentifier(db: Executor, identifier: string | undefined): Promise<InboxRow> {
  const inbox = identifier && IDENTIFIER_RE.test(identifier) ? await findInboxByIdentifier(db, identifier) : null;
  if (!inbox) throw new NotFoundError('Inbox', 'inbox_identifier');
  return inbox;
}

/**
 * Resolves `inbox_identifier` and `contact_identifier` (the contact inbox's source id, owned by
 * the contacts service). Any miss is 404, so a client cannot tell which part was wrong.
 */
export async function resolveScope(deps: ScopeDeps, ctx: RequestContext, identifier: string | undefined, sourceId: string | undefined): Promise<PublicScope & { contactInbox: ContactInbox }> {
  return resolveScopeIn(deps, ctx, await inboxByIdentifier(deps.pool, identifier), sourceId);
}

async function resolveScopeIn(deps: ScopeDeps, ctx: RequestContext, inbox: InboxRow, sourceId: string | undefined, copyMissing = false): Promise<PublicScope & { contactInbox: ContactInbox }> {
  if (!validSourceId(sourceId)) throw new NotFoundError('Contact', 'contact_identifier');
  let found: { contact_inbox: ContactInbox; contact: ContactSnapshot };
  try {
    found = await deps.peers.contacts.contactInbox(inbox.id, sourceId, { accountId: inbox.account_id, requestId: ctx.requestId });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw new NotFoundError('Contact', 'contact_identifier');
    throw err;
  }
  const { contact, contact_inbox: contactInbox } = found;
  if (contact.account_id !== inbox.account_id || contactInbox.inbox_id !== inbox.id) throw new NotFoundError('Contact', 'contact_identifier');
  await deps.projections.rememberContact(inbox.account_id, contact, { missing: copyMissing });
  return {
    inbox,
    contact,
    contactInbox,
    ctx: contactContext(ctx, inbox, contact),
  };
}

/** The request context with the inbox's account and the contact as actor. */
const contactContext = (ctx: RequestContext, inbox: InboxRow, contact: ContactSnapshot): RequestContext => ({
  ...ctx,
  accountId: inbox.account_id,
  actor: { type: 'contact', id: contact.id, name: contact.name ?? null },
});

/**
 * A request about one conversation mostly names the contact inbox the conversation was started
 * in: then the conversation row itself says the path is right (its inbox and its contact inbox's
 * source id, which never change), and its contact comes from this service's copy, read with the
 * row. That takes no call to the contacts service: the lookup, its two statements and the HTTP
 * work on both sides were about 40% of a public message's cost. A read with no copy reads the
 * contact through (and keeps the copy); a write with no copy, a deleted contact's tombstone, and
 * whatever else (the HMAC-verified contact's conversations of other inboxes, a wrong path) go the
 * full way (`resolveScope`, which keeps the copy) and answer as before. The scope made here is the
 * narrow one (this contact inbox's conversations): enough for a request about this conversation.
 *
 * What it gives up: until this service has handled a contact's `contact.deleted` (milliseconds,
 * or as long as its projections queue lags), the deleted contact's path still reaches its
 * conversations, and so does a new contact given the same source id in that time (the deletion's
 * cascade then removes the conversations and what was written to them); until `contact.merged`,
 * writes name the contact that was merged away.
 */
const COPY_SQL = `(SELECT jsonb_build_array(p.data) FROM ${PROJECTION_TABLE} p WHERE p.account_id = conversations.account_id AND p.kind = 'contact' AND p.id = conversations.contact_id) AS contact_copy__`;
/**
 * The path's inbox (its columns as `i__<column>`) and, when the path reaches one, its conversation
 * with the contact's copy (else those columns are null): the inbox's lookup and the conversation's
 * read are one round trip.
 */
const INBOX_AS = INBOX_COLUMNS.split(', ').map((c) => `i.${c} AS i__${c}`).join(', ');
const INBOX_KEYS = INBOX_COLUMNS.split(', ');
const BY_SOURCE = (lock: string) =>
  `SELECT ${INBOX_AS}, c.* FROM inboxes i LEFT JOIN LATERAL (
     SELECT ${CONVERSATION_COLUMNS}, ${COPY_SQL} FROM conversations
      WHERE conversations.account_id = i.account_id AND conversations.display_id = $2 AND conversations.inbox_id = i.id
        AND conversations.contact_inbox_source_id = $3${lock}
   ) c ON true WHERE i.identifier = $1`;
const readBySource = prepared(BY_SOURCE(''));
/** With the BEGIN (SQL-prepared: one round trip for both). */
const lockBySource = sqlPrepared(BY_SOURCE(' FOR UPDATE'));

/** The conversation row and, beside it, its contact's copy: `[data]` (`[null]`: a tombstone), null when there is none. */
type RowWithCopy = ConversationRow & { contact_copy__: [ContactSnapshot | null] | null };

/** A row of BY_SOURCE: the inbox, and the conversation with its copy (null: the path reaches none). */
function splitBySource(row: Record<string, unknown>): { inbox: InboxRow; row: RowWithCopy | null } {
  const inbox: Record<string, unknown> = {};
  const conversation: Record<string, unknown> = {};
  for (const k in row) {
    if (k.startsWith('i__')) continue;
    conversation[k] = row[k];
  }
  for (const k of INBOX_KEYS) inbox[k] = row[`i__${k}`];
  return { inbox: inbox as unknown as InboxRow, row: conversation['id'] === null ? null : (conversation as unknown as RowWithCopy) };
}

/** The path's inbox and conversation row, or the inbox alone; no such inbox is 404. */
function bySource(rows: Array<Record<string, unknown>>): { inbox: InboxRow; row: RowWithCopy | null } {
  if (!rows[0]) throw new NotFoundError('Inbox', 'inbox_identifier');
  return splitBySource(rows[0]);
}

/** The path can take the short way: an inbox identifier, a source id and a conversation id of the right form. */
const shortPath = (path: ConversationPath): boolean =>
  !!path.inbox_identifier && IDENTIFIER_RE.test(path.inbox_identifier) && validSourceId(path.contact_identifier) && Number.isSafeInteger(path.conversation_id);

/**
 * The scope the row vouches for, or null (go the full way). `readThrough` false: a missing copy is
 * null too, so that a locked row never waits on the contacts service.
 */
async function scopeFromRow(
  deps: ScopeDeps,
  ctx: RequestContext,
  inbox: InboxRow,
  sourceId: string,
  db: Executor,
  row: RowWithCopy,
  readThrough: boolean,
): Promise<{ scope: PublicScope; conversation: ConversationRow } | null> {
  const { contact_copy__: copy, ...conversation } = row;
  const contactId = conversation.contact_id;
  if (contactId === null || conversation.contact_inbox_id === null || (!copy && !readThrough)) return null;
  const rows = copy ? [{ kind: 'contact', id: contactId, data: copy[0] }] : [];
  const { contact: found } = await deps.projections.kit.completeKinds(db, inbox.account_id, { contact: [contactId] }, rows, { requestId: ctx.requestId });
  const contact = found.get(contactId) as ContactSnapshot | undefined;
  if (!contact) return null;
  return {
    conversation,
    scope: {
      inbox,
      contact,
      contactInbox: { id: conversation.contact_inbox_id, source_id: sourceId, hmac_verified: false },
      ctx: contactContext(ctx, inbox, contact),
    },
  };
}

const MISS = Symbol('miss');

/** The path's conversation and the scope it was found in (404 for anything the path does not reach). */
export async function publicConversation(deps: ScopeDeps, ctx: RequestContext, path: ConversationPath): Promise<{ scope: PublicScope; conversation: ConversationRow }> {
  const sourceId = path.contact_identifier;
  let inbox: InboxRow;
  if (shortPath(path)) {
    const { rows } = await deps.pool.query<Record<string, unknown>>(readBySource([path.inbox_identifier, path.conversation_id, sourceId]));
    const read = bySource(rows);
    inbox = read.inbox;
    const found = read.row ? await scopeFromRow(deps, ctx, inbox, sourceId, deps.pool, read.row, true) : null;
    if (found) return found;
  } else {
    inbox = await inboxByIdentifier(deps.pool, path.inbox_identifier);
  }
  const scope = await resolveScopeIn(deps, ctx, inbox, sourceId);
  return { scope, conversation: await scopedConversation(deps.pool, scope, path.conversation_id) };
}

/**
 * Runs `fn` in one transaction on the path's conversation, locked (the lock with the BEGIN), and
 * answers its result with the scope (404 for anything the path does not reach).
 */
export async function mutatePublicConversation<T>(
  deps: ScopeDeps,
  ctx: RequestContext,
  path: ConversationPath,
  fn: (tx: PoolClient, conv: ConversationRow, scope: PublicScope) => Promise<T>,
): Promise<{ scope: PublicScope; value: T }> {
  const sourceId = path.contact_identifier;
  let copyMissing = false;
  let inbox: InboxRow | null = null;
  if (shortPath(path)) {
    let scope: PublicScope | null = null;
    const value = await withTransactionFrom<Record<string, unknown>, T | typeof MISS>(deps.pool, lockBySource([path.inbox_identifier, path.conversation_id, sourceId]), async (tx, { rows }) => {
      const read = bySource(rows);
      inbox = read.inbox;
      const row = read.row;
      copyMissing = !!row && row.contact_copy__ === null;
      const found = row ? await scopeFromRow(deps, ctx, read.inbox, sourceId, tx, row, false) : null;
      if (!found) return MISS;
      scope = found.scope;
      return fn(tx, found.conversation, found.scope);
    });
    if (value !== MISS && scope) return { scope, value: value as T };
  }
  inbox ??= await inboxByIdentifier(deps.pool, path.inbox_identifier);
  // With no copy of the contact, the lookup stores one: the next write goes the short way.
  const scope = await resolveScopeIn(deps, ctx, inbox, sourceId, copyMissing);
  return { scope, value: await mutateScopedConversation(deps.pool, scope, path.conversation_id, (tx, c) => fn(tx, c, scope)) };
}

/**
 * The conversations a contact may see (Chatwoot): all of the contact's conversations when its
 * identity is HMAC-verified, else only those of this contact inbox.
 */
function scopeSql(scope: PublicScope, first: number): { sql: string; values: unknown[] } {
  if (scope.contactInbox.hmac_verified) return { sql: `account_id = $${first} AND contact_id = $${first + 1}`, values: [scope.inbox.account_id, scope.contact.id] };
  return { sql: `account_id = $${first} AND contact_inbox_id = $${first + 1}`, values: [scope.inbox.account_id, scope.contactInbox.id] };
}

export async function scopedConversations(db: Executor, scope: PublicScope): Promise<ConversationRow[]> {
  const { sql, values } = scopeSql(scope, 1);
  const { rows } = await db.query<ConversationRow>(`SELECT * FROM conversations WHERE ${sql} ORDER BY display_id`, values);
  return rows;
}

/** The scoped locking reads, prepared, by their text (one per kind of scope). */
const scopedLocks = new Map<string, ReturnType<typeof sqlPrepared>>();

/**
 * Runs `fn` in one transaction on the scope's conversation, locked: the lock goes with the BEGIN
 * (one round trip fewer; prepared once per connection; the ids are integers, the path's and the scope's).
 */
export async function mutateScopedConversation<T>(pool: Pool, scope: PublicScope, displayId: number, fn: (tx: PoolClient, conv: ConversationRow) => Promise<T>): Promise<T> {
  const { sql, values } = scopeSql(scope, 2);
  const ids = [displayId, ...values];
  if (!ids.every((v) => Number.isSafeInteger(v))) return withTransaction(pool, async (tx) => fn(tx, await scopedConversation(tx, scope, displayId, { forUpdate: true })));
  const text = `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE display_id = $1 AND ${sql} FOR UPDATE`;
  let lock = scopedLocks.get(text);
  if (!lock) scopedLocks.set(text, (lock = sqlPrepared(text)));
  return withTransactionFrom<ConversationRow, T>(pool, lock(ids as number[]), async (tx, { rows }) => {
    if (!rows[0]) throw new NotFoundError('Conversation', 'conversation_id');
    return fn(tx, rows[0]);
  });
}

export async function scopedConversation(db: Executor, scope: PublicScope, displayId: number, opts: { forUpdate?: boolean } = {}): Promise<ConversationRow> {
  const { sql, values } = scopeSql(scope, 2);
  const { rows } = await db.query<ConversationRow>(`SELECT * FROM conversations WHERE display_id = $1 AND ${sql}${opts.forUpdate ? ' FOR UPDATE' : ''}`, [displayId, ...values]);
  if (!rows[0]) throw new NotFoundError('Conversation', 'conversation_id');
  return rows[0];
}

/** Chat messages (no private notes, no activity) of several conversations, oldest first. */
export async function chatMessages(db: Executor, conversationIds: string[]): Promise<MessageRow[]> {
  if (conversationIds.length === 0) return [];
  const { rows } = await db.query<MessageRow>(
    'SELECT * FROM messages WHERE conversation_id = ANY($1::bigint[]) AND private = false AND message_type <> 2 ORDER BY id',
    [conversationIds],
  );
  return rows;
}
