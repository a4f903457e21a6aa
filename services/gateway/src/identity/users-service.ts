import { NotFoundError, ValidationError, withTransaction, writeEvent, type Executor, type ImageUpload, type RequestContext } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { deleteUser, findUser, insertUserIfNew, type UserRow } from './users-repository';
import { findMembership, listMembershipsOfUser, updateMembership, type Availability } from './agents-repository';
import { deleteTokens, findToken, insertToken, rotateToken } from './tokens-repository';
import { hashPassword, verifyPassword } from './passwords';
import { patchUser, type UserPatch } from './user-changes';
import { changeMembership, removeMembership } from './agents-service';
import { activeMembership, userEventData, userRecord } from './views';
import { deleteUserAvatar, upsertUserAvatar, userAvatarUrl } from './avatars-repository';

/** SPEC's User record for a user, with their token and memberships. */
export async function userRecordOf(deps: GatewayDeps, db: Executor, user: UserRow): Promise<ReturnType<typeof userRecord>> {
  const token = (await findToken(db, 'User', user.id)) ?? (await insertToken(db, 'User', user.id));
  const memberships = await listMembershipsOfUser(db, user.id);
  return userRecord(user, token, memberships, deps.config.USER_HMAC_KEY);
}

export async function loadUser(db: Executor, id: number): Promise<UserRow> {
  const user = await findUser(db, id);
  if (!user) throw new NotFoundError('User', 'id');
  return user;
}

/**
 * Platform API create. As in Chatwoot, an existing user with that email is answered
 * unchanged; a new one is created confirmed, with an access token.
 */
export async function createUser(
  deps: GatewayDeps,
  ctx: RequestContext,
  input: { name: string; email: string; display_name?: string | null | undefined; password?: string | undefined; custom_attributes?: Record<string, unknown> | undefined },
): Promise<{ user: UserRow; created: boolean }> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return withTransaction(deps.pool, async (tx) => {
    const user = await insertUserIfNew(tx, {
      name: input.name,
      email: input.email,
      display_name: input.display_name ?? null,
      password_hash: passwordHash,
      custom_attributes: input.custom_attributes ?? {},
    });
    if (!user) {
      const existing = await tx.query<UserRow>('SELECT * FROM users WHERE lower(email) = lower($1)', [input.email]);
      return { user: existing.rows[0] as UserRow, created: false };
    }
    await insertToken(tx, 'User', user.id);
    await writeEvent(tx, ctx, { type: 'user.created', accountId: null, data: userEventData(user) });
    return { user, created: true };
  });
}

export async function changeUser(deps: GatewayDeps, ctx: RequestContext, id: number, patch: UserPatch): Promise<UserRow> {
  const user = await withTransaction(deps.pool, async (tx) => {
    const before = await findUser(tx, id, { lock: true });
    if (!before) throw new NotFoundError('User', 'id');
    return patchUser(tx, ctx, before, patch);
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', id);
  return user;
}

/** Deletes a user everywhere: each membership is removed as an agent removal, then the user. */
export async function removeUser(deps: GatewayDeps, ctx: RequestContext, id: number): Promise<void> {
  const tokens = await withTransaction(deps.pool, async (tx) => {
    const user = await findUser(tx, id, { lock: true });
    if (!user) throw new NotFoundError('User', 'id');
    for (const m of await listMembershipsOfUser(tx, id)) await removeMembership(tx, ctx, m.account_id, id);
    const tokens = await deleteTokens(tx, 'User', [id]);
    await deleteUser(tx, id);
    await writeEvent(tx, ctx, { type: 'user.deleted', accountId: null, data: userEventData(user) });
    return tokens;
  });
  await Promise.all(tokens.map((t) => deps.principals.invalidateToken(t)));
}

/** `POST /platform/api/v1/users/{id}/token`: the user's token (made if missing). */
export async function tokenOf(deps: GatewayDeps, id: number): Promise<{ user: UserRow; token: string }> {
  return withTransaction(deps.pool, async (tx) => {
    const user = await loadUser(tx, id);
    const token = (await findToken(tx, 'User', id)) ?? (await insertToken(tx, 'User', id));
    return { user, token };
  });
}

export interface ProfilePatch extends UserPatch {
  phone_number?: string | null | undefined;
  account_id?: number | undefined;
  current_password?: string | undefined;
}

/**
 * `PUT /api/v1/profile`. Deviations: no e-mail confirmation flow exists here, so a new email
 * takes effect at once; `account_id` makes that membership the active one. An uploaded
 * `avatar` is stored and becomes the avatar_url (it wins over a given URL); a given URL
 * replaces an earlier upload.
 */
export async function updateProfile(deps: GatewayDeps, ctx: RequestContext, userId: number, input: ProfilePatch, avatar?: ImageUpload): Promise<UserRow> {
  const user = await withTransaction(deps.pool, async (tx) => {
    const before = await findUser(tx, userId, { lock: true });
    if (!before) throw new NotFoundError('User', 'id');
    if (input.password !== undefined && !(await verifyPassword(input.current_password ?? '', before.password_hash))) {
      throw ValidationError.field('current_password', 'is invalid', 'invalid_current_password');
    }
    if (input.account_id !== undefined) {
      if (!(await findMembership(tx, input.account_id, userId))) throw ValidationError.field('account_id', 'is not an account of this user', 'not_found');
      await updateMembership(tx, input.account_id, userId, { active_at: new Date() });
    }
    const patch: UserPatch = { ...input };
    if (avatar) {
      await upsertUserAvatar(tx, userId, avatar);
      patch.avatar_url = userAvatarUrl(deps.config.PUBLIC_BASE_URL, avatar.token);
    } else if (input.avatar_url !== undefined) {
      await deleteUserAvatar(tx, userId);
    }
    if (input.phone_number !== undefined) patch.custom_attributes = { ...(input.custom_attributes ?? {}), phone_number: input.phone_number };
    return patchUser(tx, ctx, before, patch);
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', userId);
  return user;
}

/** `DELETE /api/v1/profile/avatar`: an uploaded picture and a given URL both go. */
export async function removeProfileAvatar(deps: GatewayDeps, ctx: RequestContext, userId: number): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const before = await findUser(tx, userId, { lock: true });
    if (!before) throw new NotFoundError('User', 'id');
    await deleteUserAvatar(tx, userId);
    await patchUser(tx, ctx, before, { avatar_url: null });
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', userId); // the cached profile shows the picture
}

/** `POST /api/v1/profile/reset_access_token`: the old token stops working at once. */
export async function resetUserToken(deps: GatewayDeps, userId: number): Promise<void> {
  const rotated = await withTransaction(deps.pool, (tx) => rotateToken(tx, 'User', userId));
  if (rotated) await deps.principals.invalidateToken(rotated.old);
}

/** `POST /api/v1/profile/availability`: for one account, or the active one. */
export async function setAvailability(deps: GatewayDeps, ctx: RequestContext, userId: number, availability: Availability, accountId?: number): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    const memberships = await listMembershipsOfUser(tx, userId);
    const target = accountId ?? activeMembership(memberships)?.account_id;
    if (target === undefined || !memberships.some((m) => m.account_id === target)) throw ValidationError.field('account_id', 'is not an account of this user', 'not_found');
    await changeMembership(tx, ctx, target, userId, { availability });
  });
  await deps.principals.invalidateOwner(deps.pool, 'User', userId); // the cached profile shows it
}
