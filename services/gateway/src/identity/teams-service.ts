import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type Executor, type RequestContext } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import {
  deleteTeam, deleteTeamMembers, findTeam, insertTeam, insertTeamMembers, listTeams, teamIdsOfUser, teamMemberIds, updateTeam,
  type TeamFields, type TeamRow,
} from './teams-repository';
import { listAgentsByIds, memberIdsAmong, type AgentRow } from './agents-repository';
import { teamData, teamMemberEventData } from './views';

export async function loadTeam(db: Executor, accountId: number, id: number, lock = false): Promise<TeamRow> {
  const team = await findTeam(db, accountId, id, { lock });
  if (!team) throw new NotFoundError('Team', 'team_id');
  return team;
}

export async function teamsOf(deps: GatewayDeps, accountId: number, userId: number | null): Promise<{ teams: TeamRow[]; mine: Set<number> }> {
  const teams = await listTeams(deps.pool, accountId);
  const mine = new Set(userId === null ? [] : await teamIdsOfUser(deps.pool, accountId, userId));
  return { teams, mine };
}

export async function createTeam(deps: GatewayDeps, ctx: RequestContext, accountId: number, input: { name: string; description?: string | null | undefined; allow_auto_assign?: boolean | undefined }): Promise<TeamRow> {
  return withTransaction(deps.pool, async (tx) => {
    const team = await insertTeam(tx, accountId, { name: input.name, description: input.description ?? null, allow_auto_assign: input.allow_auto_assign ?? true });
    await writeEvent(tx, ctx, { type: 'team.created', accountId, data: teamData(team) });
    return team;
  });
}

export async function changeTeam(deps: GatewayDeps, ctx: RequestContext, accountId: number, id: number, patch: Partial<TeamFields>): Promise<TeamRow> {
  return withTransaction(deps.pool, async (tx) => {
    const before = await loadTeam(tx, accountId, id, true);
    const after = await updateTeam(tx, accountId, id, patch);
    const changes = diff(teamData(before), teamData(after));
    if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'team.updated', accountId, data: teamData(after), changes });
    return after;
  });
}

export async function removeTeam(deps: GatewayDeps, ctx: RequestContext, accountId: number, id: number): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const team = await loadTeam(tx, accountId, id, true);
    await deleteTeam(tx, accountId, id);
    await writeEvent(tx, ctx, { type: 'team.deleted', accountId, data: teamData(team) });
  });
}

export async function teamMembers(deps: GatewayDeps, accountId: number, teamId: number): Promise<AgentRow[]> {
  await loadTeam(deps.pool, accountId, teamId);
  return listAgentsByIds(deps.pool, accountId, await teamMemberIds(deps.pool, accountId, teamId));
}

/** Only agents of the account can join its teams; anyone else is named in a 422. */
async function checkMembers(tx: Executor, accountId: number, userIds: number[]): Promise<void> {
  const members = new Set(await memberIdsAmong(tx, accountId, userIds));
  const strangers = userIds.filter((id) => !members.has(id));
  if (strangers.length > 0) {
    throw new ValidationError(`user_ids: ${strangers.join(', ')} are not agents of this account`, strangers.map((id) => ({ field: 'user_ids', message: `${id} is not an agent of this account`, code: 'not_found' })));
  }
}

/**
 * Chatwoot's team_members endpoints: POST adds, DELETE removes, PATCH makes the list exactly
 * `user_ids`. Each answers the team's members afterwards.
 */
export async function changeTeamMembers(deps: GatewayDeps, ctx: RequestContext, accountId: number, teamId: number, mode: 'add' | 'remove' | 'set', userIds: number[]): Promise<AgentRow[]> {
  await withTransaction(deps.pool, async (tx) => {
    await loadTeam(tx, accountId, teamId, true);
    const ids = [...new Set(userIds)];
    if (mode !== 'remove') await checkMembers(tx, accountId, ids);
    const current = await teamMemberIds(tx, accountId, teamId);
    const toRemove = mode === 'remove' ? ids : mode === 'set' ? current.filter((id) => !ids.includes(id)) : [];
    const toAdd = mode === 'remove' ? [] : ids;
    for (const m of await deleteTeamMembers(tx, accountId, teamId, toRemove)) {
      await writeEvent(tx, ctx, { type: 'team_member.removed', accountId, data: teamMemberEventData(m) });
    }
    for (const m of await insertTeamMembers(tx, accountId, teamId, toAdd)) {
      await writeEvent(tx, ctx, { type: 'team_member.added', accountId, data: teamMemberEventData(m) });
    }
  });
  return teamMembers(deps, accountId, teamId);
}
