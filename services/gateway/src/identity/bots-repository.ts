import type { Executor } from '@parley/shared';
import { setClause } from './sql';

export interface BotRow {
  id: number;
  account_id: number | null;
  name: string;
  description: string | null;
  outgoing_url: string | null;
  avatar_url: string | null;
  bot_type: string;
  bot_config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface BotFields {
  account_id: number | null;
  name: string;
  description: string | null;
  outgoing_url: string | null;
  avatar_url: string | null;
  bot_type: string;
  bot_config: Record<string, unknown>;
}

const BOT_COLUMNS = ['account_id', 'name', 'description', 'outgoing_url', 'avatar_url', 'bot_type', 'bot_config'] as const;

export async function insertBot(db: Executor, b: BotFields): Promise<BotRow> {
  const { rows } = await db.query<BotRow>(
    `INSERT INTO agent_bots (account_id, name, description, outgoing_url, avatar_url, bot_type, bot_config)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [b.account_id, b.name, b.description, b.outgoing_url, b.avatar_url, b.bot_type, JSON.stringify(b.bot_config)],
  );
  return rows[0] as BotRow;
}

export async function findBot(db: Executor, id: number, opts: { lock?: boolean } = {}): Promise<BotRow | null> {
  const { rows } = await db.query<BotRow>(`SELECT * FROM agent_bots WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] ?? null;
}

/** A bot the account owns. */
export async function findAccountBot(db: Executor, accountId: number, id: number, opts: { lock?: boolean } = {}): Promise<BotRow | null> {
  const { rows } = await db.query<BotRow>(`SELECT * FROM agent_bots WHERE account_id = $1 AND id = $2${opts.lock ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

/** A bot the account may use: its own, or a global one (no account). */
export async function findVisibleBot(db: Executor, accountId: number, id: number): Promise<BotRow | null> {
  const { rows } = await db.query<BotRow>('SELECT * FROM agent_bots WHERE (account_id = $1 OR account_id IS NULL) AND id = $2', [accountId, id]);
  return rows[0] ?? null;
}

export async function listVisibleBots(db: Executor, accountId: number): Promise<BotRow[]> {
  const { rows } = await db.query<BotRow>('SELECT * FROM agent_bots WHERE account_id = $1 OR account_id IS NULL ORDER BY id', [accountId]);
  return rows;
}

export async function listAllBots(db: Executor): Promise<BotRow[]> {
  const { rows } = await db.query<BotRow>('SELECT * FROM agent_bots ORDER BY id');
  return rows;
}

export async function botIdsOfAccount(db: Executor, accountId: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM agent_bots WHERE account_id = $1', [accountId]);
  return rows.map((r) => r.id);
}

export async function updateBot(db: Executor, id: number, patch: Partial<BotFields>): Promise<BotRow> {
  const set = setClause(patch, BOT_COLUMNS, ['bot_config'], 2);
  const { rows } = await db.query<BotRow>(`UPDATE agent_bots SET ${set.sql} WHERE id = $1 RETURNING *`, [id, ...set.values]);
  return rows[0] as BotRow;
}

export async function deleteBot(db: Executor, id: number): Promise<void> {
  await db.query('DELETE FROM agent_bots WHERE id = $1', [id]);
}
