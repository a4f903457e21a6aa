import { createHmac } from 'node:crypto';
import { isoOrNull } from '@parley/shared';
import type { AccountRow } from './accounts-repository';
import type { UserRow } from './users-repository';
import type { AgentRow, MembershipRow, MembershipWithAccount } from './agents-repository';
import type { TeamMemberRow, TeamRow } from './teams-repository';
import type { BotRow } from './bots-repository';

/** What `/api/v1/accounts/{id}` answers. */
export function accountView(a: AccountRow) {
  return {
    id: a.id,
    name: a.name,
    locale: a.locale,
    domain: a.domain,
    support_email: a.support_email,
    features: a.features,
    custom_attributes: a.custom_attributes,
    status: a.status,
  };
}

/** The Platform API's account: Chatwoot adds `limits`. */
export function platformAccountView(a: AccountRow) {
  return { ...accountView(a), limits: a.limits };
}

export function accountEventData(a: AccountRow) {
  return { id: a.id, name: a.name, status: a.status, features: a.features, locale: a.locale };
}

/** docs/contracts.md `user.*` data; `thumbnail` is the picture agents see (the agent's `thumbnail`). */
export function userEventData(u: UserRow) {
  return { id: u.id, name: u.name, display_name: u.display_name, email: u.email, thumbnail: u.avatar_url ?? '' };
}

/**
 * The account whose role the profile shows: the membership used last (latest `active_at`),
 * else the oldest one, as Chatwoot's `active_account_user`.
 */
export function activeMembership<M extends MembershipRow>(memberships: M[]): M | null {
  let best: M | null = null;
  for (const m of memberships) {
    if (!best) best = m;
    else if (m.active_at && (!best.active_at || m.active_at.getTime() > best.active_at.getTime())) best = m;
  }
  return best;
}

/** SPEC's User record (operation 8), which the Platform API answers too. */
export function userRecord(u: UserRow, accessToken: string, memberships: MembershipWithAccount[], hmacKey: string) {
  const active = activeMembership(memberships);
  return {
    id: u.id,
    access_token: accessToken,
    account_id: active?.account_id ?? null,
    available_name: u.display_name || u.name,
    avatar_url: u.avatar_url ?? '',
    confirmed: u.confirmed_at !== null,
    display_name: u.display_name,
    message_signature: u.message_signature,
    email: u.email,
    hmac_identifier: createHmac('sha256', hmacKey).update(u.email).digest('hex'),
    inviter_id: active?.inviter_id ?? null,
    name: u.name,
    provider: u.provider,
    pubsub_token: u.pubsub_token,
    role: active?.role ?? null,
    ui_settings: u.ui_settings,
    uid: u.email,
    type: u.type,
    // Chatwoot shows custom_attributes only when there are some.
    ...(Object.keys(u.custom_attributes).length > 0 ? { custom_attributes: u.custom_attributes } : {}),
    accounts: memberships.map((m) => ({
      id: m.account_id,
      name: m.account_name,
      status: m.account_status,
      active_at: isoOrNull(m.active_at),
      role: m.role,
      permissions: [m.role],
      availability: m.availability,
      // No presence tracker here: the status is the availability the agent chose.
      availability_status: m.availability,
      auto_offline: m.auto_offline,
      custom_role_id: null,
      custom_role: null,
    })),
  };
}

/** Chatwoot's agent partial (docs/contracts.md `Agent`); also the data of `agent.*` events. */
export function agentView(a: AgentRow) {
  return {
    id: a.id,
    account_id: a.account_id,
    availability_status: a.availability,
    auto_offline: a.auto_offline,
    confirmed: a.confirmed_at !== null,
    email: a.email,
    provider: a.provider,
    available_name: a.display_name || a.name,
    name: a.name,
    role: a.role,
    thumbnail: a.avatar_url ?? '',
    custom_role_id: null,
  };
}

/** The raw AccountUser record the Platform API answers. */
export function accountUserView(m: MembershipRow) {
  return {
    id: m.id,
    account_id: m.account_id,
    user_id: m.user_id,
    role: m.role,
    inviter_id: m.inviter_id,
    created_at: isoOrNull(m.created_at),
    updated_at: isoOrNull(m.updated_at),
    active_at: isoOrNull(m.active_at),
    availability: m.availability,
    auto_offline: m.auto_offline,
    custom_role_id: null,
    agent_capacity_policy_id: null,
  };
}

/** docs/contracts.md `Team`; also the data of `team.*` events. */
export function teamData(t: TeamRow) {
  return { id: t.id, name: t.name, description: t.description, allow_auto_assign: t.allow_auto_assign, account_id: t.account_id };
}

/** The account API's team: Chatwoot adds whether the caller is a member. */
export function teamView(t: TeamRow, isMember: boolean) {
  return { ...teamData(t), is_member: isMember };
}

export function teamMemberEventData(m: TeamMemberRow) {
  return { id: m.id, team_id: m.team_id, user_id: m.user_id };
}

/** The account API's and Platform API's agent bot; the token only for those allowed to see it. */
export function botView(b: BotRow, accessToken: string | null) {
  return {
    id: b.id,
    name: b.name,
    description: b.description,
    thumbnail: b.avatar_url ?? '',
    outgoing_url: b.outgoing_url,
    bot_type: b.bot_type,
    bot_config: b.bot_config,
    account_id: b.account_id,
    system_bot: b.account_id === null,
    ...(accessToken ? { access_token: accessToken } : {}),
  };
}

/** What other services get from `/internal/accounts/{id}/agent_bots/{bot_id}`. */
export function botInternalView(b: BotRow) {
  return { id: b.id, name: b.name, description: b.description, thumbnail: b.avatar_url ?? '', outgoing_url: b.outgoing_url, bot_type: b.bot_type };
}

export function botEventData(b: BotRow) {
  return { id: b.id, account_id: b.account_id, name: b.name, description: b.description, outgoing_url: b.outgoing_url };
}
