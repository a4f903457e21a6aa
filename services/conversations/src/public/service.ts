import { AppError, NotFoundError, sqlPrepared, withTransaction, withTransactionFrom, type Executor, type Peers, type PoolClient, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { ContactInbox, ContactSnapshot } from '../common/peers';
import { CONVERSATION_COLUMNS, type ConversationRow, type InboxRow, type MessageRow } from '../common/rows';
import { findInboxByIdentifier } from '../inboxes/repository';
import type { Projections } from '../projections/store';

const IDENTIFIER_RE = /^[A-Za-z0-9_-]{1,128}$/;

/** Who is calling the public API, once the path named a real inbox and contact inbox. */
export interface PublicScope {
  inbox: InboxRow;
  contact: ContactSnapshot;
  contactInbox: ContactInbox;
  /** The request context with the inbox's account and the contact as actor. */
  ctx: RequestContext;
}

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
export async function resolveScope(deps: { pool: Pool; peers: Peers; projections: Projections }, ctx: RequestContext, identifier: string | undefined, sourceId: string | undefined): Promise<PublicScope> {
  const inbox = await inboxByIdentifier(deps.pool, identifier);
  if (!sourceId || sourceId.length > 255 || sourceId.includes('\u0000')) throw new NotFoundError('Contact', 'contact_identifier');
  let found: { contact_inbox: ContactInbox; contact: ContactSnapshot };
  try {
    found = await deps.peers.contacts.contactInbox(inbox.id, sourceId, { accountId: inbox.account_id, requestId: ctx.requestId });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) throw new NotFoundError('Contact', 'contact_identifier');
    throw err;
  }
  const { contact, contact_inbox: contactInbox } = found;
  if (contact.account_id !== inbox.account_id || contactInbox.inbox_id !== inbox.id) throw new NotFoundError('Contact', 'contact_identifier');
  await deps.projections.rememberContact(inbox.account_id, contact);
  return {
    inbox,
    contact,
    contactInbox,
    ctx: { ...ctx, accountId: inbox.account_id, actor: { type: 'contact', id: contact.id, name: contact.name ?? null } },
  };
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
