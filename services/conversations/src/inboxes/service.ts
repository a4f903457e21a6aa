import { ForbiddenError, NotFoundError, ValidationError, diff, withTransaction, writeEvent, type Executor, type RequestContext } from '@parley/shared';
import type { Pool } from 'pg';
import type { InboxRow } from '../common/rows';
import { visibleInboxIds } from '../common/access';
import { agentPartial } from '../common/agents';
import { inboxSnapshot } from '../common/snapshots';
import { deleteConversationsOf } from '../conversations/deletion';
import { secureToken } from '../common/tokens';
import type { Projections } from '../projections/store';
import type { AgentResponse, UpdateInboxInput } from './schemas';
import { defaultWeek, mergeWeek, weekOf } from './working-hours';
import {
  addMembers, deleteInboxRow, findInbox, insertInbox, listInboxes, listMembers, removeMembers, updateInboxRow,
  type InboxMemberRow, type InboxSettings,
} from './repository';

export interface InboxDeps {
  pool: Pool;
  projections: Projections;
}

/** `before`: the inbox's current week (an update), else a new inbox's default week. */
function settingsFrom(body: UpdateInboxInput, before: InboxRow | null = null): InboxSettings {
  const { channel, working_hours: days, ...rest } = body;
  const s: InboxSettings = { ...rest };
  if (days !== undefined) s.working_hours = mergeWeek(before ? weekOf(before.working_hours) : defaultWeek(), days);
  if (s.avatar_url === '') s.avatar_url = null;
  if (channel?.webhook_url !== undefined) s.webhook_url = channel.webhook_url;
  if (channel?.hmac_mandatory !== undefined) s.hmac_mandatory = channel.hmac_mandatory;
  if (channel?.additional_attributes !== undefined) s.additional_attributes = channel.additional_attributes;
  return s;
}

/** An inbox the caller may see: unknown is 404, another agent's inbox 403. */
export async function loadVisibleInbox(db: Executor, ctx: RequestContext, accountId: number, id: number, field = 'id'): Promise<InboxRow> {
  const inbox = await findInbox(db, accountId, id);
  if (!inbox) throw new NotFoundError('Inbox', field);
  const visible = await visibleInboxIds(db, ctx, accountId);
  if (visible !== null && !visible.includes(id)) throw new ForbiddenError('You are not a member of this inbox', 'not_inbox_member');
  return inbox;
}

export async function listVisibleInboxes(db: Executor, ctx: RequestContext, accountId: number): Promise<InboxRow[]> {
  return listInboxes(db, accountId, await visibleInboxIds(db, ctx, accountId));
}

export async function createInbox(deps: InboxDeps, ctx: RequestContext, accountId: number, body: UpdateInboxInput): Promise<InboxRow> {
  const settings = settingsFrom(body);
  return withTransaction(deps.pool, async (tx) => {
    const row = await insertInbox(tx, accountId, secureToken(), secureToken(), settings);
    await writeEvent(tx, ctx, { type: 'inbox.created', accountId, data: inboxSnapshot(row) });
    return row;
  });
}

export async function updateInbox(deps: InboxDeps, ctx: RequestContext, accountId: number, id: number, body: UpdateInboxInput): Promise<InboxRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await findInbox(tx, accountId, id, { forUpdate: true });
    if (!before) throw new NotFoundError('Inbox', 'id');
    const settings = settingsFrom(body, before);
    const after = (await updateInboxRow(tx, accountId, id, settings)) as InboxRow;
    const a = inboxSnapshot(after);
    await writeEvent(tx, ctx, { type: 'inbox.updated', accountId, data: a, changes: diff(inboxSnapshot(before), a) });
    return after;
  });
}

/**
 * Its conversations (each announced), messages and memberships go with it, as in Chatwoot. The
 * inbox row is locked first, so a conversation being opened in it meanwhile is either deleted
 * here or refused afterwards.
 */
export async function deleteInbox(deps: InboxDeps, ctx: RequestContext, accountId: number, id: number): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const inbox = await findInbox(tx, accountId, id, { forUpdate: true });
    if (!inbox) throw new NotFoundError('Inbox', 'id');
    await deleteConversationsOf(tx, { ctx }, accountId, { inboxId: id });
    await deleteInboxRow(tx, accountId, id);
    await writeEvent(tx, ctx, { type: 'inbox.deleted', accountId, data: inboxSnapshot(inbox) });
  });
}

function memberEvent(m: InboxMemberRow): Record<string, unknown> {
  return { id: m.id, inbox_id: m.inbox_id, user_id: m.user_id };
}

export async function inboxMembers(deps: InboxDeps, ctx: RequestContext, accountId: number, inboxId: number): Promise<AgentResponse[]> {
  const members = await listMembers(deps.pool, accountId, inboxId);
  const agents = await deps.projections.agents(ctx, accountId, members.map((m) => m.user_id));
  return members.filter((m) => agents.has(m.user_id) && agents.get(m.user_id)?.['removed'] !== true).map((m) => agentPartial(agents.get(m.user_id), m.user_id));
}

/**
 * Chatwoot's `/inbox_members`: create adds, update replaces the whole set, destroy removes.
 * Added users must be agents of the account (the gateway owns membership).
 */
export async function changeInboxMembers(
  deps: InboxDeps,
  ctx: RequestContext,
  accountId: number,
  mode: 'add' | 'replace' | 'remove',
  inboxId: number,
  rawUserIds: number[],
): Promise<AgentResponse[]> {
  const userIds = [...new Set(rawUserIds)];
  const inbox = await findInbox(deps.pool, accountId, inboxId);
  if (!inbox) throw new NotFoundError('Inbox', 'inbox_id');
  if (mode !== 'remove') {
    const agents = await deps.projections.memberAgents(ctx, accountId, userIds);
    const unknown = userIds.filter((id) => !agents.has(id));
    if (unknown.length > 0) throw ValidationError.field('user_ids', `are not agents of this account: ${unknown.join(', ')}`, 'not_found');
  }
  await withTransaction(deps.pool, async (tx) => {
    // One membership change of an inbox at a time, so "replace" computes its diff on a stable set.
    await tx.query('SELECT 1 FROM inboxes WHERE account_id = $1 AND id = $2 FOR UPDATE', [accountId, inbox.id]);
    const current = (await listMembers(tx, accountId, inbox.id)).map((m) => m.user_id);
    const toAdd = mode === 'remove' ? [] : userIds.filter((u) => !current.includes(u));
    const toRemove = mode === 'add' ? [] : mode === 'remove' ? userIds : current.filter((u) => !userIds.includes(u));
    for (const m of await addMembers(tx, accountId, inbox.id, toAdd)) await writeEvent(tx, ctx, { type: 'inbox_member.added', accountId, data: memberEvent(m) });
    for (const m of await removeMembers(tx, accountId, inbox.id, toRemove)) await writeEvent(tx, ctx, { type: 'inbox_member.removed', accountId, data: memberEvent(m) });
  });
  return inboxMembers(deps, ctx, accountId, inbox.id);
}
