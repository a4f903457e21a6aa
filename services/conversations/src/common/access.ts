import { ForbiddenError, type Executor, type RequestContext } from '@parley/shared';

/** Administrators, bots and internal callers see every inbox of the account; agents their member inboxes. */
export function seesEverything(ctx: RequestContext): boolean {
  if (ctx.actor.type === 'user') return ctx.role === 'administrator';
  return true;
}

export function isAdmin(ctx: RequestContext): boolean {
  return ctx.actor.type === 'user' && ctx.role === 'administrator';
}

export function userIdOf(ctx: RequestContext): number | null {
  return ctx.actor.type === 'user' && typeof ctx.actor.id === 'number' ? ctx.actor.id : null;
}

export function botIdOf(ctx: RequestContext): number | null {
  return ctx.actor.type === 'agent_bot' && typeof ctx.actor.id === 'number' ? ctx.actor.id : null;
}

/** The inboxes an agent belongs to; null means "all of them". */
export async function visibleInboxIds(db: Executor, ctx: RequestContext, accountId: number): Promise<number[] | null> {
  if (seesEverything(ctx)) return null;
  const userId = userIdOf(ctx);
  if (userId === null) return [];
  return memberInboxIds(db, accountId, userId);
}

/** The inboxes a user is a member of in an account. */
export async function memberInboxIds(db: Executor, accountId: number, userId: number): Promise<number[]> {
  const { rows } = await db.query<{ inbox_id: number }>('SELECT inbox_id FROM inbox_members WHERE account_id = $1 AND user_id = $2 ORDER BY inbox_id', [accountId, userId]);
  return rows.map((r) => r.inbox_id);
}

export async function assertInboxAccess(db: Executor, ctx: RequestContext, accountId: number, inboxId: number): Promise<void> {
  const ids = await visibleInboxIds(db, ctx, accountId);
  if (ids !== null && !ids.includes(inboxId)) throw new ForbiddenError('You are not a member of this inbox', 'not_inbox_member');
}

/** Chatwoot's ConversationPolicy#show?: admins, bots, members of the inbox or of the team. */
export async function assertConversationAccess(db: Executor, ctx: RequestContext, conv: { account_id: number; inbox_id: number; team_id: number | null }): Promise<void> {
  if (seesEverything(ctx)) return;
  const userId = userIdOf(ctx);
  if (userId !== null) {
    const { rowCount } = await db.query(
      `SELECT 1 FROM inbox_members WHERE account_id = $1 AND user_id = $2 AND inbox_id = $3
       UNION ALL
       SELECT 1 FROM team_member_projections WHERE account_id = $1 AND user_id = $2 AND team_id = $4
       LIMIT 1`,
      [conv.account_id, userId, conv.inbox_id, conv.team_id ?? -1],
    );
    if (rowCount && rowCount > 0) return;
  }
  throw new ForbiddenError('You are not authorized to access this conversation', 'forbidden');
}
