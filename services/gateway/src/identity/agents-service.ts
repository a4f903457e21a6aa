import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type Executor, type RequestContext, type Role } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import {
  deleteMembership, findAgent, findMembership, insertMembership, listAgents, listMemberships, listMembershipsOfUser, updateMembership,
  type AgentRow, type Availability, type MembershipRow,
} from './agents-repository';
import { deleteUserTeamMemberships } from './teams-repository';
import { deleteTokens, insertToken } from './tokens-repository';
import { deleteUser, findUser, findUserByEmail, insertUserIfNew } from './users-repository';
import { patchUser } from './user-changes';
import { agentView, teamMemberEventData, userEventData } from './views';

export async function agentsOf(deps: GatewayDeps, accountId: number): Promise<AgentRow[]> {
  return listAgents(deps.pool, accountId);
}

export async function loadAgent(db: Executor, accountId: number, userId: number): Promise<AgentRow> {
  const agent = await findAgent(db, accountId, userId);
  if (!agent) throw new NotFoundError('Agent', 'id');
  return agent;
}

async function agentAdded(tx: Executor, ctx: RequestContext, accountId: number, userId: number): Promise<AgentRow> {
  const agent = await loadAgent(tx, accountId, userId);
  await writeEvent(tx, ctx, { type: 'agent.added', accountId, data: agentView(agent) });
  return agent;
}

/**
 * `POST /agents`: finds the user by email or creates one (with no password, as a Platform API user
 * created without one, and a token; Chatwoot would e-mail an invitation), then adds them to the
 * account. No password matches none (`verifyPassword`), as none matched the random one it had:
 * hashing that cost 16 MB and tens of ms of scrypt an agent, for nothing.
 */
export async function addAgent(
  deps: GatewayDeps,
  ctx: RequestContext,
  accountId: number,
  input: { name: string; email: string; role: Role; availability?: Availability | undefined; auto_offline?: boolean | undefined },
): Promise<AgentRow> {
  const agent = await withTransaction(deps.pool, async (tx) => {
    let user = await insertUserIfNew(tx, { name: input.name, email: input.email, password_hash: null });
    if (user) {
      await insertToken(tx, 'User', user.id);
      await writeEvent(tx, ctx, { type: 'user.created', accountId: null, data: userEventData(user) });
    } else {
      user = await findUserByEmail(tx, input.email);
      if (!user) throw new Error('user vanished during insert');
    }
    const membership = await insertMembership(tx, {
      accountId,
      userId: user.id,
      role: input.role,
      inviterId: ctx.actor.type === 'user' && typeof ctx.actor.id === 'number' ? ctx.actor.id : null,
      availability: input.availability,
      autoOffline: input.auto_offline,
    });
    if (!membership) throw ValidationError.field('email', 'already belongs to an agent of this account', 'taken');
    return agentAdded(tx, ctx, accountId, user.id);
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', agent.id);
  return agent;
}

/** Platform `POST /accounts/{id}/account_users`: an upsert of the membership's role. */
export async function upsertAccountUser(deps: GatewayDeps, ctx: RequestContext, accountId: number, userId: number, role: Role): Promise<MembershipRow> {
  const membership = await withTransaction(deps.pool, async (tx) => {
    if (!(await findUser(tx, userId))) throw ValidationError.field('user_id', 'does not exist', 'not_found');
    const inserted = await insertMembership(tx, { accountId, userId, role, inviterId: null });
    if (inserted) {
      await agentAdded(tx, ctx, accountId, userId);
      return inserted;
    }
    return changeMembership(tx, ctx, accountId, userId, { role });
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', userId);
  return membership;
}

export function accountUsersOf(deps: GatewayDeps, accountId: number): Promise<MembershipRow[]> {
  return listMemberships(deps.pool, accountId);
}

/** Changes a membership (and the user's name) and publishes `agent.updated` with its changes. */
export async function changeMembership(
  tx: Executor,
  ctx: RequestContext,
  accountId: number,
  userId: number,
  patch: { name?: string | undefined; role?: Role | undefined; availability?: Availability | undefined; auto_offline?: boolean | undefined },
): Promise<MembershipRow> {
  const before = await findAgent(tx, accountId, userId);
  if (!before) throw new NotFoundError('Agent', 'id');
  if (patch.name !== undefined) {
    // The name is the user's, shown in every account they belong to: say so (user.updated).
    const user = await findUser(tx, userId, { lock: true });
    if (user) await patchUser(tx, ctx, user, { name: patch.name });
  }
  const membership = await updateMembership(tx, accountId, userId, { role: patch.role, availability: patch.availability, auto_offline: patch.auto_offline });
  const after = await loadAgent(tx, accountId, userId);
  const changes = diff(agentView(before), agentView(after));
  if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'agent.updated', accountId, data: agentView(after), changes });
  return membership;
}

export async function updateAgent(
  deps: GatewayDeps,
  ctx: RequestContext,
  accountId: number,
  userId: number,
  patch: { name?: string | undefined; role?: Role | undefined; availability?: Availability | undefined; auto_offline?: boolean | undefined },
): Promise<AgentRow> {
  const agent = await withTransaction(deps.pool, async (tx) => {
    // Lock order everywhere: the user, then the membership (removeAgent does the same).
    if (!(await findUser(tx, userId, { lock: true })) || !(await findMembership(tx, accountId, userId, { lock: true }))) throw new NotFoundError('Agent', 'id');
    await changeMembership(tx, ctx, accountId, userId, patch);
    return loadAgent(tx, accountId, userId);
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', userId);
  return agent;
}

/**
 * Takes a user out of one account inside the caller's transaction: membership and team
 * memberships go, `agent.removed` tells the other services (conversations unassigns them).
 */
export async function removeMembership(tx: Executor, ctx: RequestContext, accountId: number, userId: number): Promise<boolean> {
  const agent = await findAgent(tx, accountId, userId);
  if (!agent) return false;
  for (const m of await deleteUserTeamMemberships(tx, accountId, userId)) {
    await writeEvent(tx, ctx, { type: 'team_member.removed', accountId, data: teamMemberEventData(m) });
  }
  await deleteMembership(tx, accountId, userId);
  await writeEvent(tx, ctx, { type: 'agent.removed', accountId, data: agentView(agent) });
  return true;
}

/**
 * `DELETE /agents/{id}` (SPEC 12) and the Platform API's account_users delete. As in
 * Chatwoot, the account API deletes a user left without any account (with their token); the
 * Platform API keeps the user (`keepUser`), so a platform app moving a user between accounts
 * does not lose it.
 */
export async function removeAgent(deps: GatewayDeps, ctx: RequestContext, accountId: number, userId: number, opts: { keepUser?: boolean } = {}): Promise<void> {
  const dropped = await withTransaction(deps.pool, async (tx) => {
    // The user row first: removals of one user from two accounts at once take turns, so the
    // second sees the first's and deletes a user left without accounts (user, then membership).
    const user = await findUser(tx, userId, { lock: true });
    if (!user || !(await findMembership(tx, accountId, userId, { lock: true }))) throw new NotFoundError('Agent', 'id');
    await removeMembership(tx, ctx, accountId, userId);
    if (opts.keepUser || (await listMembershipsOfUser(tx, userId)).length > 0) return [];
    const tokens = await deleteTokens(tx, 'User', [userId]);
    await deleteUser(tx, userId);
    await writeEvent(tx, ctx, { type: 'user.deleted', accountId: null, data: userEventData(user) });
    return tokens;
  });
  // The principal of a user who stays elsewhere still lists this account: drop it.
  // At once: each waits for the replicas' confirmations.
  await Promise.all([deps.principals.invalidateOwner(deps.pool, 'User', userId), ...dropped.map((t) => deps.principals.invalidateToken(t))]);
}
