import {
  AppError, checkFilter, CONTACT_FILTER_KEYS, contactCustomFilterKey, filterBodySchema, NotFoundError, parseBody, ValidationError, withTransaction, type Executor,
} from '@parley/shared';
import type { Pool } from 'pg';
import { checkConversationFilter } from '../filters/conversation-filter';
import {
  countCustomFilters, deleteCustomFilter, findCustomFilter, insertCustomFilter, listCustomFilters, updateCustomFilterRow, type CustomFilterRow, type Owner,
} from './repository';
import type { CreateCustomFilterInput, FilterType, UpdateCustomFilterInput } from './schemas';

/** Chatwoot's CustomFilter::MAX_FILTER_LIMIT, per user and account. */
export const MAX_CUSTOM_FILTERS = 1000;

/** Errors about the filter body name it under `query` (`query.payload.1.filter_operator`). */
function underQuery(err: unknown): never {
  if (err instanceof ValidationError) {
    const items = err.items.map((i) => ({ ...i, field: i.field ? `query.${i.field}` : 'query' }));
    throw new ValidationError(`query.${err.message}`, items);
  }
  throw err;
}

/**
 * A saved query must be a filter of its type: conversation filters are checked as
 * `POST /conversations/filter` checks them (with the account's custom attribute definitions),
 * contact filters against the contact keys; report filters have no defined shape (Chatwoot
 * stores any JSON) and are kept as sent.
 */
async function checkQuery(db: Executor, accountId: number, type: FilterType, query: Record<string, unknown>): Promise<void> {
  if (type === 'report') return;
  try {
    const body = parseBody(filterBodySchema, query);
    if (type === 'conversation') await checkConversationFilter(db, accountId, body.payload);
    else checkFilter(body.payload, CONTACT_FILTER_KEYS, contactCustomFilterKey);
  } catch (err) {
    underQuery(err);
  }
}

export function listFilters(db: Executor, owner: Owner, type: FilterType): Promise<CustomFilterRow[]> {
  return listCustomFilters(db, owner, type);
}

export async function showFilter(db: Executor, owner: Owner, id: number): Promise<CustomFilterRow> {
  const row = await findCustomFilter(db, owner, id);
  if (!row) throw new NotFoundError('Custom filter', 'id');
  return row;
}

export async function createFilter(pool: Pool, owner: Owner, input: CreateCustomFilterInput): Promise<CustomFilterRow> {
  if (input.name === undefined) throw ValidationError.field('name', 'is required', 'required');
  if (input.query === undefined) throw ValidationError.field('query', 'is required', 'required');
  const type = input.filter_type ?? input.type ?? 'conversation';
  await checkQuery(pool, owner.accountId, type, input.query);
  const { name, query } = input;
  return withTransaction(pool, async (tx) => {
    // One user's saves of one account in turn, so the limit holds under concurrent creates.
    await tx.query('SELECT pg_advisory_xact_lock($1, $2)', [owner.accountId, owner.userId]);
    if ((await countCustomFilters(tx, owner)) >= MAX_CUSTOM_FILTERS) {
      throw new AppError(422, 'validation_failed', `You can save at most ${MAX_CUSTOM_FILTERS} filters in an account`, [
        { field: 'base', message: `at most ${MAX_CUSTOM_FILTERS} saved filters per user and account`, code: 'limit_reached' },
      ]);
    }
    return insertCustomFilter(tx, owner, { name, filter_type: type, query });
  });
}

export async function updateFilter(pool: Pool, owner: Owner, id: number, input: UpdateCustomFilterInput): Promise<CustomFilterRow> {
  return withTransaction(pool, async (tx) => {
    const row = await findCustomFilter(tx, owner, id, { forUpdate: true });
    if (!row) throw new NotFoundError('Custom filter', 'id');
    const next = { name: input.name ?? row.name, filter_type: input.filter_type ?? input.type ?? row.filter_type, query: input.query ?? row.query };
    // A new type or a new query: the saved query must be a filter of the type it is saved as.
    if (input.query !== undefined || next.filter_type !== row.filter_type) await checkQuery(tx, owner.accountId, next.filter_type, next.query);
    return updateCustomFilterRow(tx, owner, id, next);
  });
}

export async function removeFilter(db: Executor, owner: Owner, id: number): Promise<void> {
  if (!(await deleteCustomFilter(db, owner, id))) throw new NotFoundError('Custom filter', 'id');
}

export function presentFilter(row: CustomFilterRow) {
  return {
    id: Number(row.id),
    name: row.name,
    filter_type: row.filter_type,
    query: row.query,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
