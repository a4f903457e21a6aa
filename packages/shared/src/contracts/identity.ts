import { z } from 'zod';
import { id } from './common';

/**
 * What the identity owner (the gateway) publishes: `account.*`, `user.*`, `agent.*`, `team.*`,
 * `team_member.*`, `agent_bot.*` events and its internal API (`/internal/accounts/...`).
 * Producers: `services/gateway/src/identity/views.ts`.
 */

/** `account.*` data and `GET /internal/accounts/{id}`. */
export const accountContract = z.strictObject({
  id,
  name: z.string(),
  status: z.enum(['active', 'suspended']),
  features: z.record(z.string(), z.boolean()),
  locale: z.string(),
});
export type Account = z.infer<typeof accountContract>;

/**
 * `user.*` data (envelope `account_id` null: a user belongs to several accounts). `thumbnail` is
 * the user's avatar URL (`''` without one), which is also the agent's `thumbnail` in every account.
 */
export const userContract = z.strictObject({
  id,
  name: z.string(),
  display_name: z.string().nullable(),
  email: z.string(),
  thumbnail: z.string(),
});
export type User = z.infer<typeof userContract>;

/**
 * Chatwoot's agent partial: `agent.*` data and `GET /internal/accounts/{a}/agents[/{user_id}]`.
 * `id` is the user's id; `available_name` is `display_name || name`.
 */
export const agentContract = z.strictObject({
  id,
  account_id: id,
  availability_status: z.enum(['online', 'offline', 'busy']),
  auto_offline: z.boolean(),
  confirmed: z.boolean(),
  email: z.string(),
  provider: z.string(),
  available_name: z.string(),
  name: z.string(),
  role: z.enum(['agent', 'administrator']),
  thumbnail: z.string(),
  custom_role_id: id.nullable(),
});
export type Agent = z.infer<typeof agentContract>;

/**
 * `user.pubsub_token_rotated` data (envelope `account_id` null): the user's realtime token was
 * replaced (a password change, as Chatwoot rotates it). `account_ids` are the accounts the user is
 * a member of; `revoked_token_sha256` identifies the old token (never the token) so the realtime
 * service ends the subscriptions made with it, and only those.
 */
export const pubsubTokenRotatedContract = z.strictObject({
  id,
  account_ids: z.array(id),
  revoked_token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type PubsubTokenRotated = z.infer<typeof pubsubTokenRotatedContract>;

/** `team.*` data and `GET /internal/accounts/{a}/teams/{id}`. */
export const teamContract = z.strictObject({
  id,
  name: z.string(),
  description: z.string().nullable(),
  allow_auto_assign: z.boolean(),
  account_id: id,
});
export type Team = z.infer<typeof teamContract>;

/** `team_member.added|removed` data (envelope `account_id` set). */
export const teamMemberContract = z.strictObject({ id, team_id: id, user_id: id });
export type TeamMember = z.infer<typeof teamMemberContract>;

/** `GET /internal/accounts/{a}/teams/{id}/members`: the team's members (a team mention reaches them). */
export const teamMemberIdsContract = z.strictObject({ user_ids: z.array(id) });
export type TeamMemberIds = z.infer<typeof teamMemberIdsContract>;

/** `agent_bot.*` data; `account_id` null for a global (Platform) bot. */
export const agentBotEventContract = z.strictObject({
  id,
  account_id: id.nullable(),
  name: z.string(),
  description: z.string().nullable(),
  outgoing_url: z.string().nullable(),
});
export type AgentBotEvent = z.infer<typeof agentBotEventContract>;

/** `GET /internal/accounts/{a}/agent_bots/{id}` (the account's own bots and global ones). */
export const agentBotContract = z.strictObject({
  id,
  name: z.string(),
  description: z.string().nullable(),
  thumbnail: z.string(),
  outgoing_url: z.string().nullable(),
  bot_type: z.string(),
});
export type AgentBot = z.infer<typeof agentBotContract>;

/**
 * `POST /internal/pubsub/agents/resolve` body: a realtime `RoomChannel` subscription's user
 * token, user and account. The answer is that user's `Agent` in that account; 404 when the token
 * is not that user's or the user is not a member (the realtime service rejects the subscription).
 */
export const pubsubAgentRequest = z.strictObject({ pubsub_token: z.string().min(1).max(255), user_id: id, account_id: id });
export type PubsubAgentRequest = z.infer<typeof pubsubAgentRequest>;
