import { createHash } from 'node:crypto';
import { diff, writeEvent, type Executor, type RequestContext } from '@parley/shared';
import { listMembershipsOfUser } from './agents-repository';
import { rotatePubsubToken, updateUser, type UserFields, type UserRow } from './users-repository';
import { hashPassword } from './passwords';
import { userEventData } from './views';

export interface UserPatch {
  name?: string | undefined;
  display_name?: string | null | undefined;
  email?: string | undefined;
  message_signature?: string | null | undefined;
  avatar_url?: string | null | undefined;
  ui_settings?: Record<string, unknown> | undefined;
  custom_attributes?: Record<string, unknown> | undefined;
  password?: string | undefined;
}

/**
 * Applies a patch (custom_attributes merged) and publishes `user.updated` with its changes. A new
 * password also replaces the realtime `pubsub_token`, as Chatwoot does, and says so
 * (`user.pubsub_token_rotated`): the realtime service ends the subscriptions made with the old one.
 */
export async function patchUser(tx: Executor, ctx: RequestContext, before: UserRow, patch: UserPatch): Promise<UserRow> {
  const fields: Partial<UserFields> = {
    name: patch.name,
    display_name: patch.display_name,
    email: patch.email,
    message_signature: patch.message_signature,
    avatar_url: patch.avatar_url,
    ui_settings: patch.ui_settings,
    custom_attributes: patch.custom_attributes ? { ...before.custom_attributes, ...patch.custom_attributes } : undefined,
    password_hash: patch.password ? await hashPassword(patch.password) : undefined,
  };
  let after = await updateUser(tx, before.id, fields);
  if (patch.password) {
    after = await rotatePubsubToken(tx, before.id);
    const accountIds = (await listMembershipsOfUser(tx, before.id)).map((m) => m.account_id);
    const revoked = createHash('sha256').update(before.pubsub_token).digest('hex');
    await writeEvent(tx, ctx, { type: 'user.pubsub_token_rotated', accountId: null, data: { id: before.id, account_ids: accountIds, revoked_token_sha256: revoked } });
  }
  const changes = diff(userEventData(before), userEventData(after));
  if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'user.updated', accountId: null, data: userEventData(after), changes });
  return after;
}

