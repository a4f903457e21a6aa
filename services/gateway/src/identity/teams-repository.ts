import type { Executor } from '@parley/shared';
import { setClause } from './sql';

export interface TeamRow {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  allow_auto_assign: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TeamMemberRow {
  id: number;
  account_id: number;
  team_id: number;
  user_id: number;
  created_at: Date;
}

export interface TeamFields {
  name: string;
  description: string | null;
  allow_auto_assign: boolean;
}

const TEAM_COLUMNS = ['name', 'description', 'allow_auto_assign'] as const;

export async function listTeams(db: Executor, accountId: number): Promise<TeamRow[]> {
  const { rows } = await db.query<TeamRow>('SELECT * FROM teams WHERE account_id = $1 ORDER BY lower(name), id', [accountId]);
  return rows;
}

export async function findTeam(db: Executor, accountId: number, id: number, opts: { lock?: boolean } = {}): Promise<TeamRow | null> {
  const { rows } = await db.query<TeamRow>(`SELECT * FROM teams WHERE account_id = $1 AND id = $2${opts.lock ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

export async function insertTeam(db: Executor, accountId: number, t: TeamFields): Promise<TeamRow> {
  const { rows } = await db.query<TeamRow>('INSERT INTO teams (account_id, name, description, allow_auto_assign) VALUES ($1, $2, $3, $4) RETURNING *', [
    accountId,
    t.name,
    t.description,
    t.allow_auto_assign,
  ]);
  return rows[0] as TeamRow;
}

export async function updateTeam(db: Executor, accountId: number, id: number, patch: Partial<TeamFields>): Promise<TeamRow> {
  const set = setClause(patch, TEAM_COLUMNS, [], 3);
  const { rows } = await db.query<TeamRow>(`UPDATE teams SET ${set.sql} WHERE account_id = $1 AND id = $2 RETURNING *`, [accountId, id, ...set.values]);
  return rows[0] as TeamRow;
}

export async function deleteTeam(db: Executor, accountId: number, id: number): Promise<void> {
  await db.query('DELETE FROM teams WHERE account_id = $1 AND id = $2', [accountId, id]);
}

/** Ids of the teams (of this account) the user belongs to. */
export async function teamIdsOfUser(db: Executor, accountId: number, userId: number): Promise<number[]> {
  const { rows } = await db.query<{ team_id: number }>('SELECT team_id FROM team_members WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  return rows.map((r) => r.team_id);
}

export async function teamMemberIds(db: Executor, accountId: number, teamId: number): Promise<number[]> {
  const { rows } = await db.query<{ user_id: number }>('SELECT user_id FROM team_members WHERE account_id = $1 AND team_id = $2 ORDER BY id', [accountId, teamId]);
  return rows.map((r) => r.user_id);
}

/** Adds members; returns only the rows that were new. */
export async function insertTeamMembers(db: Executor, accountId: number, teamId: number, userIds: number[]): Promise<TeamMemberRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<TeamMemberRow>(
    `INSERT INTO team_members (account_id, team_id, user_id)
     SELECT $1, $2, u FROM unnest($3::int[]) AS u
     ON CONFLICT ON CONSTRAINT team_members__user_id DO NOTHING RETURNING *`,
    [accountId, teamId, userIds],
  );
  return rows;
}

export async function deleteTeamMembers(db: Executor, accountId: number, teamId: number, userIds: number[]): Promise<TeamMemberRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<TeamMemberRow>('DELETE FROM team_members WHERE account_id = $1 AND team_id = $2 AND user_id = ANY($3::int[]) RETURNING *', [
    accountId,
    teamId,
    userIds,
  ]);
  return rows;
}

/** Removes a user from every team of one account (the agent left it). */
export async function deleteUserTeamMemberships(db: Executor, accountId: number, userId: number): Promise<TeamMemberRow[]> {
  const { rows } = await db.query<TeamMemberRow>('DELETE FROM team_members WHERE account_id = $1 AND user_id = $2 RETURNING *', [accountId, userId]);
  return rows;
}
