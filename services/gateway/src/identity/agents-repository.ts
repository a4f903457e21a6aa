import type { Executor, Role } from '@parley/shared';
import { setClause } from './sql';

export type Availability = 'online' | 'offline' | 'busy';

/** One `account_users` row: a user's membership of an account. */
export interface MembershipRow {
  id: number;
  account_id: number;
  user_id: number;
  role: Role;
  inviter_id: number | null;
  availability: Availability;
  auto_offline: boolean;
  active_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A membership with its account, for the profile's `accounts`. */
export interface MembershipWithAccount extends MembershipRow {
  account_name: string;
  account_status: string;
}

/** A member of an account as the agents endpoints show it (user joined with membership). */
export interface AgentRow {
  id: number;
  account_id: number;
  name: string;
  display_name: string | null;
  email: string;
  provider: string;
  avatar_url: string | null;
  confirmed_at: Date | null;
  role: Role;
  availability: Availability;
  auto_offline: boolean;
}

export interface MembershipFields {
  role: Role;
  availability: Availability;
  auto_offline: boolean;
  active_at: Date;
}

const MEMBERSHIP_COLUMNS = ['role', 'availability', 'auto_offline', 'active_at'] as const;

const AGENT_SELECT = `SELECT u.id, au.account_id, u.name, u.display_name, u.email, u.provider, u.avatar_url, u.confirmed_at,
                             au.role, au.availability, au.auto_offline
                        FROM account_users au JOIN users u ON u.id = au.user_id`;

export async function listAgents(db: Executor, accountId: number): Promise<AgentRow[]> {
  const { rows } = await db.query<AgentRow>(`${AGENT_SELECT} WHERE au.account_id = $1 ORDER BY lower(u.name), u.id`, [accountId]);
  return rows;
}

export async function listAgentsByIds(db: Executor, accountId: number, userIds: number[]): Promise<AgentRow[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<AgentRow>(`${AGENT_SELECT} WHERE au.account_id = $1 AND au.user_id = ANY($2::int[]) ORDER BY lower(u.name), u.id`, [accountId, userIds]);
  return rows;
}

export async function findAgent(db: Executor, accountId: number, userId: number): Promise<AgentRow | null> {
  const { rows } = await db.query<AgentRow>(`${AGENT_SELECT} WHERE au.account_id = $1 AND au.user_id = $2`, [accountId, userId]);
  return rows[0] ?? null;
}

/** The membership of the user whose realtime `pubsub_token` this is, if that user is `userId` and a member of the account. */
export async function findAgentByPubsubToken(db: Executor, accountId: number, userId: number, pubsubToken: string): Promise<AgentRow | null> {
  const { rows } = await db.query<AgentRow>(`${AGENT_SELECT} WHERE au.account_id = $1 AND au.user_id = $2 AND u.pubsub_token = $3`, [accountId, userId, pubsubToken]);
  return rows[0] ?? null;
}

/** Every account a user belongs to, oldest membership first. */
export async function listAgentsOfUser(db: Executor, userId: number): Promise<AgentRow[]> {
  const { rows } = await db.query<AgentRow>(`${AGENT_SELECT} WHERE au.user_id = $1 ORDER BY au.id`, [userId]);
  return rows;
}

export async function findMembership(db: Executor, accountId: number, userId: number, opts: { lock?: boolean } = {}): Promise<MembershipRow | null> {
  const { rows } = await db.query<MembershipRow>(`SELECT * FROM account_users WHERE account_id = $1 AND user_id = $2${opts.lock ? ' FOR UPDATE' : ''}`, [accountId, userId]);
  return rows[0] ?? null;
}

export async function listMemberships(db: Executor, accountId: number): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>('SELECT * FROM account_users WHERE account_id = $1 ORDER BY id', [accountId]);
  return rows;
}

export async function listMembershipsOfUser(db: Executor, userId: number): Promise<MembershipWithAccount[]> {
  const { rows } = await db.query<MembershipWithAccount>(
    `SELECT au.*, a.name AS account_name, a.status AS account_status
       FROM account_users au JOIN accounts a ON a.id = au.account_id
      WHERE au.user_id = $1 ORDER BY au.id`,
    [userId],
  );
  return rows;
}

/** Which of these users are members of the account. */
export async function memberIdsAmong(db: Executor, accountId: number, userIds: number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const { rows } = await db.query<{ user_id: number }>('SELECT user_id FROM account_users WHERE account_id = $1 AND user_id = ANY($2::int[])', [accountId, userIds]);
  return rows.map((r) => r.user_id);
}

/** Inserts a membership; null when the user is a member already. */
export async function insertMembership(
  db: Executor,
  m: { accountId: number; userId: number; role: Role; inviterId: number | null; availability?: Availability; autoOffline?: boolean },
): Promise<MembershipRow | null> {
  const { rows } = await db.query<MembershipRow>(
    `INSERT INTO account_users (account_id, user_id, role, inviter_id, availability, auto_offline)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT ON CONSTRAINT account_users__user_id DO NOTHING RETURNING *`,
    [m.accountId, m.userId, m.role, m.inviterId, m.availability ?? 'online', m.autoOffline ?? true],
  );
  return rows[0] ?? null;
}

export async function updateMembership(db: Executor, accountId: number, userId: number, patch: Partial<MembershipFields>): Promise<MembershipRow> {
  const set = setClause(patch, MEMBERSHIP_COLUMNS, [], 3);
  const { rows } = await db.query<MembershipRow>(`UPDATE account_users SET ${set.sql} WHERE account_id = $1 AND user_id = $2 RETURNING *`, [accountId, userId, ...set.values]);
  return rows[0] as MembershipRow;
}

export async function deleteMembership(db: Executor, accountId: number, userId: number): Promise<MembershipRow | null> {
  const { rows } = await db.query<MembershipRow>('DELETE FROM account_users WHERE account_id = $1 AND user_id = $2 RETURNING *', [accountId, userId]);
  return rows[0] ?? null;
}
