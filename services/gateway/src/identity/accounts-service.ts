import { diff, NotFoundError, withTransaction, writeEvent, type RequestContext } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { deleteAccount, findAccount, insertAccount, listAccounts, updateAccount, type AccountFields, type AccountRow } from './accounts-repository';
import { botIdsOfAccount } from './bots-repository';
import { listMemberships } from './agents-repository';
import { deleteTokens } from './tokens-repository';
import { accountEventData } from './views';

export async function createAccount(deps: GatewayDeps, ctx: RequestContext, input: Partial<AccountFields> & { name: string }): Promise<AccountRow> {
  return withTransaction(deps.pool, async (tx) => {
    const account = await insertAccount(tx, {
      name: input.name,
      locale: input.locale ?? 'en',
      domain: input.domain ?? null,
      support_email: input.support_email ?? null,
      status: input.status ?? 'active',
      features: input.features ?? {},
      limits: input.limits ?? {},
      custom_attributes: input.custom_attributes ?? {},
    });
    await writeEvent(tx, ctx, { type: 'account.created', accountId: account.id, data: accountEventData(account) });
    return account;
  });
}

export async function getAccount(deps: GatewayDeps, id: number): Promise<AccountRow> {
  const account = await findAccount(deps.pool, id);
  if (!account) throw new NotFoundError('Account', 'id');
  return account;
}

export function allAccounts(deps: GatewayDeps): Promise<AccountRow[]> {
  return listAccounts(deps.pool);
}

/** Features are merged flag by flag (Chatwoot's `enable_features`/`disable_features` in one map). */
export async function changeAccount(deps: GatewayDeps, ctx: RequestContext, id: number, patch: Partial<AccountFields>): Promise<AccountRow> {
  const updated = await withTransaction(deps.pool, async (tx) => {
    const before = await findAccount(tx, id, { lock: true });
    if (!before) throw new NotFoundError('Account', 'id');
    const next: Partial<AccountFields> = { ...patch };
    if (patch.features) next.features = { ...before.features, ...patch.features };
    if (patch.custom_attributes) next.custom_attributes = { ...before.custom_attributes, ...patch.custom_attributes };
    const after = await updateAccount(tx, id, next);
    const changes = diff(accountEventData(before), accountEventData(after));
    if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'account.updated', accountId: id, data: accountEventData(after), changes });
    return after;
  });
  await deps.principals.invalidateAccount(id);
  return updated;
}

/** Removes the account with its memberships, teams and bots; members keep their user. */
export async function removeAccount(deps: GatewayDeps, ctx: RequestContext, id: number): Promise<void> {
  const { memberIds, botTokens } = await withTransaction(deps.pool, async (tx) => {
    const account = await findAccount(tx, id, { lock: true });
    if (!account) throw new NotFoundError('Account', 'id');
    const members = await listMemberships(tx, id);
    const botTokens = await deleteTokens(tx, 'AgentBot', await botIdsOfAccount(tx, id));
    await deleteAccount(tx, id);
    await writeEvent(tx, ctx, { type: 'account.deleted', accountId: id, data: accountEventData(account) });
    return { memberIds: members.map((m) => m.user_id), botTokens };
  });
  // At once: each waits for the replicas' confirmations.
  await Promise.all([deps.principals.invalidateAccount(id), deps.principals.invalidateUsers(deps.pool, memberIds), ...botTokens.map((t) => deps.principals.invalidateToken(t))]);
}
