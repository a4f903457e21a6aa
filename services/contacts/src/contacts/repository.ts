import { columnsOf, fewRows, prepared, type Executor } from '@parley/shared';
import type { SortSpec } from './schemas';

/** An uploaded avatar's metadata (bytes in contact_avatars); `token` names its public URL. */
export interface AvatarMeta {
  token: string;
  content_type: string;
  byte_size: number;
  sha256: string;
}

export interface ContactRow {
  id: number;
  account_id: number;
  name: string;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  avatar_url: string | null;
  avatar: AvatarMeta | null;
  additional_attributes: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  blocked: boolean;
  labels: string[];
  last_activity_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Columns a use case may write. */
export interface ContactWrite {
  name?: string;
  email?: string | null;
  phone_number?: string | null;
  identifier?: string | null;
  avatar_url?: string | null;
  avatar?: AvatarMeta | null;
  additional_attributes?: Record<string, unknown>;
  custom_attributes?: Record<string, unknown>;
  blocked?: boolean;
  labels?: string[];
}

const WRITABLE: ReadonlyArray<keyof ContactWrite> = [
  'name',
  'email',
  'phone_number',
  'identifier',
  'avatar_url',
  'avatar',
  'additional_attributes',
  'custom_attributes',
  'blocked',
  'labels',
];
const JSON_COLUMNS = new Set<keyof ContactWrite>(['avatar', 'additional_attributes', 'custom_attributes']);

function columnValue(key: keyof ContactWrite, value: unknown): unknown {
  return JSON_COLUMNS.has(key) && value !== null && value !== undefined ? JSON.stringify(value) : value;
}

/** `INSERT INTO contacts (...)` with the written columns; `suffix` goes before RETURNING. */
function insertSql(accountId: number, w: ContactWrite, suffix: string): { sql: string; vals: unknown[] } {
  const cols = ['account_id'];
  const vals: unknown[] = [accountId];
  for (const k of WRITABLE) {
    if (w[k] === undefined) continue;
    cols.push(k);
    vals.push(columnValue(k, w[k]));
  }
  return { sql: `INSERT INTO contacts (${cols.join(', ')}) VALUES (${vals.map((_, i) => `$${i + 1}`).join(', ')})${suffix} RETURNING *`, vals };
}

export async function insertContact(db: Executor, accountId: number, w: ContactWrite): Promise<ContactRow> {
  const { sql, vals } = insertSql(accountId, w, '');
  const { rows } = await db.query<ContactRow>(sql, vals);
  return rows[0] as ContactRow;
}

/**
 * Inserts unless a unique key (email, identifier, phone) is already taken; a concurrent
 * insert of the same key waits for the other transaction and then yields null.
 */
export async function insertContactIfAbsent(db: Executor, accountId: number, w: ContactWrite): Promise<ContactRow | null> {
  const { sql, vals } = insertSql(accountId, w, ' ON CONFLICT DO NOTHING');
  const { rows } = await db.query<ContactRow>(sql, vals);
  return rows[0] ?? null;
}

/** The columns `ContactRow` has: what its prepared statements return instead of `*` (`columnsOf`). */
export const CONTACT_COLUMNS = columnsOf<ContactRow>({
  id: true, account_id: true, name: true, email: true, phone_number: true, identifier: true,
  avatar_url: true, avatar: true, additional_attributes: true, custom_attributes: true, blocked: true,
  labels: true, last_activity_at: true, created_at: true, updated_at: true,
});

// Prepared: the public API asks for a contact on every call (its plan weighs the table's many indexes).
const contactById = prepared(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE account_id = $1 AND id = $2`);
const contactByIdForUpdate = prepared(`SELECT ${CONTACT_COLUMNS} FROM contacts WHERE account_id = $1 AND id = $2 FOR UPDATE`);

export async function findContact(db: Executor, accountId: number, id: number, opts: { forUpdate?: boolean } = {}): Promise<ContactRow | null> {
  const { rows } = await db.query<ContactRow>((opts.forUpdate ? contactByIdForUpdate : contactById)([accountId, id]));
  return rows[0] ?? null;
}

export async function findContactsByIds(db: Executor, accountId: number, ids: number[]): Promise<ContactRow[]> {
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND id = ANY($2::int[])', [accountId, ids]);
  return rows;
}

export async function findContactByIdentifier(db: Executor, accountId: number, identifier: string): Promise<ContactRow | null> {
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND identifier = $2', [accountId, identifier]);
  return rows[0] ?? null;
}

export async function findContactByEmail(db: Executor, accountId: number, email: string): Promise<ContactRow | null> {
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND lower(email) = lower($2)', [accountId, email]);
  return rows[0] ?? null;
}

export async function findContactByPhone(db: Executor, accountId: number, phone: string): Promise<ContactRow | null> {
  const { rows } = await db.query<ContactRow>('SELECT * FROM contacts WHERE account_id = $1 AND phone_number = $2', [accountId, phone]);
  return rows[0] ?? null;
}

export async function updateContact(db: Executor, accountId: number, id: number, w: ContactWrite): Promise<ContactRow | null> {
  const sets: string[] = [];
  const vals: unknown[] = [accountId, id];
  for (const k of WRITABLE) {
    if (w[k] === undefined) continue;
    vals.push(columnValue(k, w[k]));
    sets.push(`${k} = $${vals.length}`);
  }
  sets.push('updated_at = now()');
  const { rows } = await db.query<ContactRow>(`UPDATE contacts SET ${sets.join(', ')} WHERE account_id = $1 AND id = $2 RETURNING *`, vals);
  return rows[0] ?? null;
}

export async function deleteContact(db: Executor, accountId: number, id: number): Promise<ContactRow | null> {
  const { rows } = await db.query<ContactRow>('DELETE FROM contacts WHERE account_id = $1 AND id = $2 RETURNING *', [accountId, id]);
  return rows[0] ?? null;
}

export async function deleteAccountContacts(db: Executor, accountId: number): Promise<number> {
  const r = await db.query('DELETE FROM contacts WHERE account_id = $1', [accountId]);
  return r.rowCount ?? 0;
}

// Prepared: once a consumer batch with a contact's messages (its plan weighed the table's indexes every batch), and
// planned once per connection (`fewRows`).
const touchMany = prepared(
  `UPDATE contacts c SET last_activity_at = t.at
     FROM unnest($1::int[], $2::int[], $3::timestamptz[]) AS t (account_id, id, at)
    WHERE c.account_id = t.account_id AND c.id = t.id AND (c.last_activity_at IS NULL OR c.last_activity_at < t.at) AND ${fewRows('t.id')}`,
);

/** Several contacts' last activity in one statement (a consumer batch's messages); each only moves forward (events may arrive out of order). */
export async function touchLastActivities(db: Executor, touches: Array<{ accountId: number; id: number; at: Date }>): Promise<void> {
  if (touches.length === 0) return;
  await db.query(touchMany([touches.map((t) => t.accountId), touches.map((t) => t.id), touches.map((t) => t.at)]));
}

export async function touchLastActivity(db: Executor, accountId: number, id: number, at: Date): Promise<void> {
  await db.query(
    `UPDATE contacts SET last_activity_at = $3
      WHERE account_id = $1 AND id = $2 AND (last_activity_at IS NULL OR last_activity_at < $3)`,
    [accountId, id, at],
  );
}

export async function upsertAvatar(
  db: Executor,
  accountId: number,
  contactId: number,
  file: { token: string; content_type: string; byte_size: number; sha256: string; data: Buffer },
): Promise<void> {
  await db.query(
    `INSERT INTO contact_avatars (contact_id, account_id, token, content_type, byte_size, sha256, data) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (contact_id) DO UPDATE SET token = EXCLUDED.token, content_type = EXCLUDED.content_type, byte_size = EXCLUDED.byte_size,
       sha256 = EXCLUDED.sha256, data = EXCLUDED.data, created_at = now()`,
    [contactId, accountId, file.token, file.content_type, file.byte_size, file.sha256, file.data],
  );
}

export async function deleteAvatar(db: Executor, accountId: number, contactId: number): Promise<void> {
  await db.query('DELETE FROM contact_avatars WHERE account_id = $1 AND contact_id = $2', [accountId, contactId]);
}

/** The public avatar URL carries no account: the unguessable token is the only key. */
export async function findAvatarByToken(db: Executor, token: string): Promise<{ content_type: string; byte_size: number; sha256: string; data: Buffer } | null> {
  const { rows } = await db.query<{ content_type: string; byte_size: number; sha256: string; data: Buffer }>(
    'SELECT content_type, byte_size, sha256, data FROM contact_avatars WHERE token = $1',
    [token],
  );
  return rows[0] ?? null;
}

/** A WHERE fragment with its own numbered parameters (starting after the account id, $1). */
export class SqlWhere {
  readonly parts: string[] = [];
  readonly params: unknown[];

  constructor(accountId: number) {
    this.params = [accountId];
  }

  /** Adds a value and returns its placeholder. */
  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  and(fragment: string): this {
    this.parts.push(`(${fragment})`);
    return this;
  }

  toSql(): string {
    return ['account_id = $1', ...this.parts].join(' AND ');
  }
}

/** The resolved-contact rule (Chatwoot's `resolved_contacts`); matches the partial list indexes. */
export const RESOLVED = 'email IS NOT NULL OR phone_number IS NOT NULL OR identifier IS NOT NULL';

function orderBy(sort: SortSpec[]): string {
  if (sort.length === 0) return 'id ASC';
  const terms = sort.map(({ key, desc }) => {
    const dir = desc ? 'DESC' : 'ASC';
    switch (key) {
      case 'name':
        return `lower(name) ${dir}`;
      case 'email':
        return `lower(email) ${dir} NULLS LAST`;
      case 'phone_number':
        return `phone_number ${dir} NULLS LAST`;
      case 'last_activity_at':
        return `last_activity_at ${dir} NULLS LAST`;
      case 'created_at':
        return `created_at ${dir}`;
    }
  });
  // Stable pages: equal sort values are ordered by id, in the first key's direction.
  return [...terms, `id ${sort[0]?.desc ? 'DESC' : 'ASC'}`].join(', ');
}

export async function queryContacts(db: Executor, where: SqlWhere, sort: SortSpec[], limit: number, offset: number): Promise<ContactRow[]> {
  const params = [...where.params, limit, offset];
  const { rows } = await db.query<ContactRow>(
    `SELECT * FROM contacts WHERE ${where.toSql()} ORDER BY ${orderBy(sort)} LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  );
  return rows;
}

export async function countContacts(db: Executor, where: SqlWhere): Promise<number> {
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM contacts WHERE ${where.toSql()}`, where.params);
  return Number(rows[0]?.n ?? 0);
}
