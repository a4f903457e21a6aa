import { AppError, ForbiddenError, NotFoundError, ValidationError, withTransaction, withTransactionFrom, writeEvent, type Executor, type Peers, type PoolClient, type RequestContext, type SqlPrepared } from '@parley/shared';
import type { Pool } from 'pg';
import { assertConversationAccess, isAdmin, userIdOf, visibleInboxIds } from '../common/access';
import { agentPartial } from '../common/agents';
import type { Agent, ResolvedContactInbox, Team } from '../common/peers';
import { priorityValue, type ConversationRow, type ConversationStatus, type InboxRow } from '../common/rows';
import { conversationSnapshot } from '../common/snapshots';
import { findInbox } from '../inboxes/repository';
import { lastIncomingAt } from '../messages/repository';
import { assertHasContent, createMessage, senderFor, type MessageInput, type UploadedFile } from '../messages/service';
import type { Projections } from '../projections/store';
import { changeConversation, emit, type Cause } from './changes';
import { countConversations, listConversations, listPageWithCounts, PAGE_SIZE, type Counts, type ListedPage, type ListFilter } from './list';
import { findConversation, insertConversation, lockConversationSql, nextDisplayId, type ConversationPatch } from './repository';
import { qPattern, type SearchHits } from './search-hits';
import type { AssignmentInput, CreateConversationInput, ListConversationsQuery, ToggleStatusInput } from './schemas';
import { assertInboxAccess } from '../common/access';
import type { AgentResponse } from '../inboxes/schemas';

export interface ConversationDeps {
  pool: Pool;
  peers: Peers;
  projections: Projections;
  /** `q` patterns with search hits (the list reads messages without it). */
  searchHits?: SearchHits;
}

/** A conversation the caller may act on: unknown (or another account's) is 404, not visible 403. */
export async function loadConversation(db: Executor, ctx: RequestContext, accountId: number, displayId: number, opts: { forUpdate?: boolean } = {}): Promise<ConversationRow> {
  const conv = await findConversation(db, accountId, displayId, opts);
  if (!conv) throw new NotFoundError('Conversation', 'conversation_id');
  await assertConversationAccess(db, ctx, conv);
  return conv;
}

/** Runs `fn` on the locked conversation in one transaction; every change inside is one unit with its events. */
export async function mutateConversation<T>(
  pool: Pool,
  cause: Cause,
  accountId: number,
  displayId: number,
  fn: (tx: PoolClient, conv: ConversationRow) => Promise<T>,
  // The lock goes with the BEGIN (one round trip fewer); the ids are integers (path params). A
  // caller may send its own locking read of the row (a command's, which also writes its receipt).
  lock: SqlPrepared | null = lockConversationSql(accountId, displayId),
): Promise<T> {
  if (lock === null) return withTransaction(pool, async (tx) => fn(tx, await loadConversation(tx, cause.ctx, accountId, displayId, { forUpdate: true })));
  return withTransactionFrom<ConversationRow, T>(pool, lock, async (tx, { rows }) => {
    const conv = rows[0];
    if (!conv) throw new NotFoundError('Conversation', 'conversation_id');
    await assertConversationAccess(tx, cause.ctx, conv);
    return fn(tx, conv);
  });
}

function filterFrom(accountId: number, ctx: RequestContext, visible: number[] | null, q: Partial<ListConversationsQuery>): ListFilter {
  return {
    accountId,
    visibleInboxIds: visible,
    userId: userIdOf(ctx),
    status: q.status,
    assigneeType: q.assignee_type,
    q: q.q,
    inboxId: q.inbox_id,
    teamId: q.team_id,
    labels: q.labels,
    sourceId: q.source_id,
    conversationType: q.conversation_type,
    updatedWithinSeconds: q.updated_within,
  };
}

/**
 * Chatwoot's finder looks the list's `team_id` up in the account (`teams.find`): a team that is
 * not the account's is 404, not an empty list (asked of the gateway when the projection lacks it).
 */
async function assertTeamOfAccount(deps: ConversationDeps, ctx: RequestContext, accountId: number, teamId: number | undefined): Promise<void> {
  if (teamId === undefined) return;
  if (!(await deps.projections.teams(ctx, accountId, [teamId], true)).has(teamId)) throw new NotFoundError('Team', 'team_id');
}

/**
 * SPEC op 1: the counts see every filter but the assignee one, which only narrows the page.
 * `updated_within` (seconds) answers every conversation updated since, unpaginated, with the
 * counts of the list without it (Chatwoot's ConversationFinder).
 */
export async function listPage(
  deps: ConversationDeps,
  ctx: RequestContext,
  accountId: number,
  q: ListConversationsQuery,
  opts: { qMatchesContactName?: boolean } = {},
): Promise<ListedPage> {
  await assertTeamOfAccount(deps, ctx, accountId, q.team_id);
  const f: ListFilter = { ...filterFrom(accountId, ctx, await visibleInboxIds(deps.pool, ctx, accountId), q), qMatchesContactName: opts.qMatchesContactName };
  const pattern = await useSearchHits(deps, f);
  const page = q.updated_within !== undefined ? null : (q.page ?? 1);
  // Counts, page, the page's last messages and the copies it names in one query (one round trip instead of five).
  const out = await listPageWithCounts(deps.pool, f, q.sort_by ?? 'last_activity_at_desc', page);
  if (pattern !== null && !f.qHits) deps.searchHits?.consider(accountId, pattern, out.meta.all_count);
  return out;
}

/** With `q`: reads its pattern's search hits when it has them (sets `f.qHits`); answers the pattern. */
async function useSearchHits(deps: ConversationDeps, f: ListFilter): Promise<string | null> {
  if (f.q === undefined || f.q === '' || !deps.searchHits) return null;
  const pattern = qPattern(f.q);
  f.qHits = await deps.searchHits.registered(deps.pool, f.accountId, pattern);
  return pattern;
}

export async function counts(deps: ConversationDeps, ctx: RequestContext, accountId: number, q: Partial<ListConversationsQuery>): Promise<Counts> {
  await assertTeamOfAccount(deps, ctx, accountId, q.team_id);
  const f = filterFrom(accountId, ctx, await visibleInboxIds(deps.pool, ctx, accountId), q);
  await useSearchHits(deps, f);
  return countConversations(deps.pool, f);
}

/** The newest conversations of a contact the caller can see (Chatwoot's contacts/conversations). */
export async function contactConversations(deps: ConversationDeps, ctx: RequestContext, accountId: number, contactId: number): Promise<ConversationRow[]> {
  const f = filterFrom(accountId, ctx, await visibleInboxIds(deps.pool, ctx, accountId), { status: 'all' });
  f.contactId = contactId;
  const rows = await listConversations(deps.pool, f, 'last_activity_at_desc', 1);
  return rows.slice(0, Math.min(20, PAGE_SIZE));
}

/** The agent must be a member of the account (the gateway's word, through the projection). */
async function requireAgent(deps: ConversationDeps, ctx: RequestContext, accountId: number, id: number, field: string): Promise<Agent> {
  const agent = (await deps.projections.memberAgents(ctx, accountId, [id])).get(id);
  if (!agent) throw ValidationError.field(field, 'is not an agent of this account', 'not_found');
  return agent;
}

async function requireTeam(deps: ConversationDeps, ctx: RequestContext, accountId: number, id: number, field: string): Promise<Team> {
  const team = (await deps.projections.teams(ctx, accountId, [id], true)).get(id);
  if (!team) throw ValidationError.field(field, 'is not a team of this account', 'not_found');
  return team;
}

/** Future instants only: a snooze that is already over would reopen at once. */
function snoozeUntil(status: string, until: Date | null | undefined): Date | null {
  if (status !== 'snoozed' || !until) return null;
  if (until.getTime() <= Date.now()) throw ValidationError.field('snoozed_until', 'must be in the future', 'invalid');
  return until;
}

/**
 * SPEC op 4. The contact_inbox comes from the contacts service: with `contact_id`, found or
 * created for (contact, inbox); with only `source_id`, the existing one of that inbox.
 */
export async function createConversation(deps: ConversationDeps, ctx: RequestContext, accountId: number, input: CreateConversationInput, files?: UploadedFile[]): Promise<ConversationRow> {
  if (input.inbox_id === undefined) throw ValidationError.field('inbox_id', 'is required', 'required');
  if (input.contact_id === undefined && input.source_id === undefined) {
    throw new ValidationError('contact_id or source_id is required', [
      { field: 'contact_id', message: 'or source_id is required', code: 'required' },
      { field: 'source_id', message: 'or contact_id is required', code: 'required' },
    ]);
  }
  const status = input.status ?? 'open';
  const snoozedUntil = snoozeUntil(status, input.snoozed_until);
  const inbox = await findInbox(deps.pool, accountId, input.inbox_id);
  if (!inbox) throw new NotFoundError('Inbox', 'inbox_id');
  await assertInboxAccess(deps.pool, ctx, accountId, inbox.id);
  if (input.message) {
    const type = input.message.message_type ?? 1;
    assertHasContent(input.message.content, files, input.message.content_type ?? 'text');
    if (type === 2) throw ValidationError.field('message.message_type', 'cannot be activity for an initial message', 'invalid');
  }
  const assignee = input.assignee_id ? await requireAgent(deps, ctx, accountId, input.assignee_id, 'assignee_id') : null;
  const team = input.team_id ? await requireTeam(deps, ctx, accountId, input.team_id, 'team_id') : null;

  let resolved: ResolvedContactInbox;
  try {
    resolved = await deps.peers.contacts.resolveContactInbox(accountId, {
      inbox_id: inbox.id,
      ...(input.contact_id !== undefined ? { contact_id: input.contact_id } : {}),
      ...(input.source_id !== undefined ? { source_id: input.source_id } : {}),
      ...(input.hmac_verified !== undefined ? { hmac_verified: input.hmac_verified } : {}),
    }, { requestId: ctx.requestId });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      throw input.contact_id !== undefined ? new NotFoundError('Contact', 'contact_id') : new NotFoundError('Contact inbox', 'source_id');
    }
    throw err;
  }
  await deps.projections.rememberContact(accountId, resolved.contact);

  return openConversation(deps.pool, { ctx }, inbox, resolved, {
    status,
    snoozedUntil,
    assigneeId: assignee ? (input.assignee_id ?? null) : null,
    teamId: team ? (input.team_id ?? null) : null,
    additionalAttributes: input.additional_attributes ?? {},
    customAttributes: input.custom_attributes ?? {},
    message: input.message
      ? {
          message_type: input.message.message_type ?? 1,
          content: input.message.content ?? null,
          content_type: input.message.content_type ?? 'text',
          content_attributes: input.message.content_attributes ?? {},
          private: input.message.private ?? false,
          source_id: input.message.source_id ?? null,
          files,
        }
      : null,
  });
}

export interface OpenConversationFields {
  status: ConversationStatus;
  snoozedUntil: Date | null;
  assigneeId: number | null;
  teamId: number | null;
  additionalAttributes: Record<string, unknown>;
  customAttributes: Record<string, unknown>;
  /** The initial message; its sender follows from the caller and the type. */
  message: (Omit<MessageInput, 'sender_type' | 'sender_id'>) | null;
}

/**
 * Chatwoot's ConversationBuilder for a contact inbox already resolved: the inbox's last
 * conversation when it locks contacts to one, else a new one with the next display id, its
 * events, and the initial message.
 */
export async function openConversation(pool: Pool, cause: Cause, inbox: InboxRow, resolved: ResolvedContactInbox, fields: OpenConversationFields): Promise<ConversationRow> {
  const { contact, contact_inbox: ci } = resolved;
  const accountId = inbox.account_id;
  return withTransaction(pool, async (tx) => {
    if (inbox.lock_to_single_conversation) {
      // Serialise openers of this contact inbox, so concurrent requests cannot each create "the single" conversation.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('conversations:single_conversation'), $1)`, [ci.id]);
      const { rows } = await tx.query<ConversationRow>('SELECT * FROM conversations WHERE account_id = $1 AND contact_inbox_id = $2 ORDER BY id DESC LIMIT 1', [accountId, ci.id]);
      if (rows[0]) return rows[0];
    }
    const displayId = await nextDisplayId(tx, accountId);
    // Chatwoot: a blocked contact's new conversation starts resolved.
    const status = contact.blocked ? 'resolved' : fields.status;
    let conv = await insertConversation(
      tx,
      {
        account_id: accountId,
        inbox_id: inbox.id,
        contact_id: contact.id,
        contact_inbox_id: ci.id,
        contact_inbox_source_id: ci.source_id,
        hmac_verified: ci.hmac_verified,
        status,
        priority: null,
        assignee_id: fields.assigneeId,
        team_id: fields.teamId,
        snoozed_until: status === 'snoozed' ? fields.snoozedUntil : null,
        additional_attributes: fields.additionalAttributes,
        custom_attributes: fields.customAttributes,
      },
      displayId,
    );
    const snap = conversationSnapshot(conv);
    await emit(tx, cause, 'conversation.created', accountId, snap);
    if (conv.assignee_id !== null) await emit(tx, cause, 'assignee.changed', accountId, snap, { assignee_id: [null, conv.assignee_id] });
    if (conv.team_id !== null) await emit(tx, cause, 'team.changed', accountId, snap, { team_id: [null, conv.team_id] });
    if (fields.message) {
      const created = await createMessage(tx, cause, conv, { ...fields.message, ...senderFor(cause.ctx, conv, fields.message.message_type) });
      conv = created.conversation;
    }
    return conv;
  });
}

export interface ToggleStatusResult {
  conversation: ConversationRow;
}

/** A request's one change of the conversation: its transaction ends with it. */
const LAST = { last: true } as const;

/**
 * `toggle_status`: the given status, or open <-> resolved when none is given. An agent who
 * opens an unassigned conversation takes it (Chatwoot assigns the agent even when someone
 * else has it; we do not take it away from a colleague).
 */
export async function toggleStatus(deps: ConversationDeps, cause: Cause, accountId: number, displayId: number, input: ToggleStatusInput): Promise<ConversationRow> {
  return mutateConversation(deps.pool, cause, accountId, displayId, async (tx, conv) => {
    const status = input.status ?? (conv.status === 'open' ? 'resolved' : 'open');
    const patch: ConversationPatch = { status, snoozed_until: snoozeUntil(status, input.snoozed_until) };
    const me = userIdOf(cause.ctx);
    if (status === 'open' && me !== null && cause.ctx.role === 'agent' && conv.assignee_id === null) patch.assignee_id = me;
    return changeConversation(tx, cause, conv, patch, LAST);
  });
}

export async function setPriority(deps: ConversationDeps, cause: Cause, accountId: number, displayId: number, priority: string | null | undefined): Promise<ConversationRow> {
  return mutateConversation(deps.pool, cause, accountId, displayId, (tx, conv) => changeConversation(tx, cause, conv, { priority: priorityValue(priority) }, LAST));
}

export async function setCustomAttributes(deps: ConversationDeps, cause: Cause, accountId: number, displayId: number, attrs: Record<string, unknown>): Promise<ConversationRow> {
  return mutateConversation(deps.pool, cause, accountId, displayId, (tx, conv) => changeConversation(tx, cause, conv, { custom_attributes: attrs }, LAST));
}

export async function setLabels(deps: ConversationDeps, cause: Cause, accountId: number, displayId: number, labels: string[]): Promise<ConversationRow> {
  const unique = [...new Set(labels)];
  return mutateConversation(deps.pool, cause, accountId, displayId, (tx, conv) => changeConversation(tx, cause, conv, { labels: unique }, LAST));
}

export async function setMuted(deps: ConversationDeps, cause: Cause, accountId: number, displayId: number, muted: boolean): Promise<ConversationRow> {
  // Chatwoot's mute! resolves the conversation too; unmute only lifts the mute.
  const patch: ConversationPatch = muted ? { muted: true, status: 'resolved' } : { muted: false };
  return mutateConversation(deps.pool, cause, accountId, displayId, (tx, conv) => changeConversation(tx, cause, conv, patch, LAST));
}

/**
 * `assignments`: `assignee_id` (null unassigns) or else `team_id` (null unassigns the team).
 * Unknown agents or teams are refused (Chatwoot silently unassigns).
 */
export async function assign(
  deps: ConversationDeps,
  cause: Cause,
  accountId: number,
  displayId: number,
  input: AssignmentInput,
): Promise<{ conversation: ConversationRow; answer: AgentResponse | Team | null }> {
  const { ctx } = cause;
  if ('assignee_id' in input) {
    const id = input.assignee_id ?? null;
    const agent = id === null ? null : await requireAgent(deps, ctx, accountId, id, 'assignee_id');
    const conversation = await mutateConversation(deps.pool, cause, accountId, displayId, (tx, conv) =>
      changeConversation(tx, cause, conv, { assignee_id: id }, { names: { assignee: agent?.name ?? null }, last: true }),
    );
    return { conversation, answer: id === null ? null : agentPartial(agent ?? undefined, id) };
  }
  if ('team_id' in input) {
    const id = input.team_id ?? null;
    const team = id === null ? null : await requireTeam(deps, ctx, accountId, id, 'team_id');
    const conversation = await mutateConversation(deps.pool, cause, accountId, displayId, async (tx, conv) => {
      const previous = conv.team_id === null ? null : ((await deps.projections.team(ctx, accountId, conv.team_id))?.name ?? null);
      return changeConversation(tx, cause, conv, { team_id: id }, { names: { team: team?.name ?? null, previousTeam: previous }, last: true });
    });
    return {
      conversation,
      answer: team ? { id: team.id, name: team.name, description: team.description ?? null, allow_auto_assign: team.allow_auto_assign === true, account_id: accountId } : null,
    };
  }
  throw new ValidationError('assignee_id or team_id is required', [
    { field: 'assignee_id', message: 'or team_id is required', code: 'required' },
    { field: 'team_id', message: 'or assignee_id is required', code: 'required' },
  ]);
}

/** Read receipts of the agent side: `agent_last_seen_at`, and `assignee_last_seen_at` for the assignee. */
export async function markSeen(deps: ConversationDeps, ctx: RequestContext, accountId: number, displayId: number, at: Date | 'now' | 'before_last_incoming'): Promise<ConversationRow> {
  return withTransaction(deps.pool, async (tx) => {
    const conv = await loadConversation(tx, ctx, accountId, displayId, { forUpdate: true });
    let when: Date | null = at === 'now' ? new Date() : at === 'before_last_incoming' ? null : at;
    if (at === 'before_last_incoming') {
      const last = await lastIncomingAt(tx, conv.id);
      if (!last) return conv;
      when = new Date(last.getTime() - 1000);
    }
    const assignee = conv.assignee_id !== null && conv.assignee_id === userIdOf(ctx);
    const { rows } = await tx.query<ConversationRow>(
      `UPDATE conversations SET agent_last_seen_at = $3${assignee ? ', assignee_last_seen_at = $3' : ''} WHERE account_id = $1 AND id = $2 RETURNING *`,
      [accountId, conv.id, when],
    );
    return rows[0] as ConversationRow;
  });
}

/** Administrators only (Chatwoot's ConversationPolicy#destroy?). */
export async function deleteConversation(deps: ConversationDeps, ctx: RequestContext, accountId: number, displayId: number): Promise<void> {
  if (!isAdmin(ctx)) throw new ForbiddenError('Only administrators can delete conversations');
  await withTransaction(deps.pool, async (tx) => {
    const conv = await loadConversation(tx, ctx, accountId, displayId, { forUpdate: true });
    await tx.query('DELETE FROM conversations WHERE id = $1', [conv.id]);
    await writeEvent(tx, ctx, { type: 'conversation.deleted', accountId, data: conversationSnapshot(conv) });
  });
}
