import { prepared, type Executor } from '@parley/shared';
import type { Action, Condition } from './schemas';

export interface RuleRow {
  id: number;
  account_id: number;
  name: string;
  description: string | null;
  event_name: string;
  conditions: Condition[];
  actions: Action[];
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface RuleFields {
  name: string;
  description: string | null;
  event_name: string;
  conditions: Condition[];
  actions: Action[];
  active: boolean;
}

const COLUMNS = 'id, account_id, name, description, event_name, conditions, actions, active, created_at, updated_at';

export async function insertRule(db: Executor, accountId: number, f: RuleFields): Promise<RuleRow> {
  const { rows } = await db.query<RuleRow>(
    `INSERT INTO automation_rules (account_id, name, description, event_name, conditions, actions, active)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [accountId, f.name, f.description, f.event_name, JSON.stringify(f.conditions), JSON.stringify(f.actions), f.active],
  );
  return rows[0] as RuleRow;
}

export async function findRule(db: Executor, accountId: number, id: number, forUpdate = false): Promise<RuleRow | null> {
  const { rows } = await db.query<RuleRow>(`SELECT ${COLUMNS} FROM automation_rules WHERE account_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`, [accountId, id]);
  return rows[0] ?? null;
}

export async function listRules(db: Executor, accountId: number): Promise<RuleRow[]> {
  const { rows } = await db.query<RuleRow>(`SELECT ${COLUMNS} FROM automation_rules WHERE account_id = $1 ORDER BY id`, [accountId]);
  return rows;
}

export async function listActiveRules(db: Executor, accountId: number): Promise<RuleRow[]> {
  const { rows } = await db.query<RuleRow>(`SELECT ${COLUMNS} FROM automation_rules WHERE account_id = $1 AND active ORDER BY id`, [accountId]);
  return rows;
}

export async function updateRule(db: Executor, accountId: number, id: number, f: RuleFields): Promise<RuleRow | null> {
  const { rows } = await db.query<RuleRow>(
    `UPDATE automation_rules SET name = $3, description = $4, event_name = $5, conditions = $6, actions = $7, active = $8, updated_at = now()
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [accountId, id, f.name, f.description, f.event_name, JSON.stringify(f.conditions), JSON.stringify(f.actions), f.active],
  );
  return rows[0] ?? null;
}

/** Deletes the rule and its runs (no foreign key cascades to them: migration 006); run it in a transaction. */
export async function deleteRule(db: Executor, accountId: number, id: number): Promise<RuleRow | null> {
  const { rows } = await db.query<RuleRow>(`DELETE FROM automation_rules WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [accountId, id]);
  if (rows[0]) await db.query('DELETE FROM rule_runs WHERE account_id = $1 AND rule_id = $2', [accountId, id]);
  return rows[0] ?? null;
}

/** Bumps the account's rule version; run in the transaction of every rule change. */
export async function bumpRuleVersion(db: Executor, accountId: number): Promise<void> {
  await db.query('INSERT INTO rule_versions (account_id, version) VALUES ($1, 1) ON CONFLICT (account_id) DO UPDATE SET version = rule_versions.version + 1', [accountId]);
}

const selectRuleVersion = prepared('SELECT version FROM rule_versions WHERE account_id = $1');

export async function ruleVersion(db: Executor, accountId: number): Promise<number> {
  const { rows } = await db.query<{ version: string }>(selectRuleVersion([accountId]));
  return rows[0] ? Number(rows[0].version) : 0;
}

export interface RunRow {
  id: string;
  account_id: number;
  rule_id: number;
  event_id: string;
  event_type: string;
  event_name: string;
  conversation_id: number | null;
  message_id: string | null;
  matched: boolean;
  reason: string | null;
  condition_results: Array<boolean | null>;
  actions: unknown[];
  errors: unknown[];
  created_at: Date;
}

export interface NewRun {
  accountId: number;
  ruleId: number;
  eventId: string;
  eventType: string;
  eventName: string;
  conversationId: number | null;
  messageId: number | null;
  matched: boolean;
  reason: string | null;
  conditionResults: Array<boolean | null>;
  actions: unknown[];
  errors: unknown[];
}

const insertRunRows = prepared(
  `INSERT INTO rule_runs (account_id, rule_id, event_id, event_type, event_name, conversation_id, message_id, matched, reason, condition_results, actions, errors)
     SELECT r.account_id, r.rule_id, r.event_id, r.event_type, r.event_name, r.conversation_id, r.message_id, r.matched, r.reason, r.condition_results, r.actions, r.errors
     FROM jsonb_to_recordset($1::jsonb) AS r(account_id integer, rule_id integer, event_id uuid, event_type text, event_name text, conversation_id integer,
       message_id bigint, matched boolean, reason text, condition_results jsonb, actions jsonb, errors jsonb)
     WHERE EXISTS (SELECT 1 FROM automation_rules a WHERE a.id = r.rule_id)`,
);

/**
 * Records the evaluations of one event, or of a batch of events, in one statement (hundreds of
 * rules stay one round trip). Once per event: the caller's transaction also records the event as
 * processed (the kernel's consumer), so no key of their own (migration 007).
 */
export async function insertRuns(db: Executor, runs: NewRun[]): Promise<void> {
  if (runs.length === 0) return;
  await db.query(
    insertRunRows([
      JSON.stringify(
        runs.map((r) => ({
          account_id: r.accountId,
          rule_id: r.ruleId,
          event_id: r.eventId,
          event_type: r.eventType,
          event_name: r.eventName,
          conversation_id: r.conversationId,
          message_id: r.messageId,
          matched: r.matched,
          reason: r.reason,
          condition_results: r.conditionResults,
          actions: r.actions,
          errors: r.errors,
        })),
      ),
    ]),
  );
}

const RUN_COLUMNS = 'id, account_id, rule_id, event_id, event_type, event_name, conversation_id, message_id, matched, reason, condition_results, actions, errors, created_at';

export async function listRuns(db: Executor, accountId: number, ruleId: number, limit: number, offset: number): Promise<{ rows: RunRow[]; count: number }> {
  const [page, total] = await Promise.all([
    db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM rule_runs WHERE account_id = $1 AND rule_id = $2 ORDER BY id DESC LIMIT $3 OFFSET $4`, [accountId, ruleId, limit, offset]),
    db.query<{ count: string }>('SELECT count(*) AS count FROM rule_runs WHERE account_id = $1 AND rule_id = $2', [accountId, ruleId]),
  ]);
  return { rows: page.rows, count: Number(total.rows[0]?.count ?? 0) };
}

/**
 * Drops runs older than the retention (a maintenance job, in batches): of the oldest `batch` rows
 * by id (ids follow the time rows are written; no index on created_at, migration 006), those past
 * it. The caller repeats until a batch deletes none: then the oldest rows are all recent.
 */
export async function pruneRuns(db: Executor, olderThanDays: number, batch = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM rule_runs WHERE id IN (
       SELECT id FROM (SELECT id, created_at FROM rule_runs ORDER BY id LIMIT $2) oldest WHERE created_at < now() - $1 * interval '1 day')`,
    [olderThanDays, batch],
  );
  return rowCount ?? 0;
}
