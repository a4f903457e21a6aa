import { callService, systemContext, type RequestContext } from '@parley/shared';
import type { ConversationsConfig } from '../config';

/** docs/contracts.md `ContactSnapshot`. */
export interface ContactSnapshot {
  id: number;
  account_id: number;
  name: string | null;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  thumbnail: string | null;
  avatar_url?: string | null;
  additional_attributes: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  blocked: boolean;
  availability_status?: string;
  last_activity_at: number | null;
  created_at: number;
  [k: string]: unknown;
}

export interface ContactInbox {
  id: number;
  contact_id: number;
  inbox_id: number;
  source_id: string;
  hmac_verified: boolean;
  pubsub_token?: string;
}

export interface ResolvedContactInbox {
  contact_inbox: ContactInbox;
  contact: ContactSnapshot;
}

/** docs/contracts.md `Agent` (Chatwoot's agent partial). */
export interface Agent {
  id: number;
  account_id: number;
  name: string;
  email: string;
  role: string;
  [k: string]: unknown;
}

export interface Team {
  id: number;
  name: string;
  description: string | null;
  allow_auto_assign: boolean;
  account_id: number;
}

export interface AgentBot {
  id: number;
  name: string;
  description?: string | null;
  thumbnail?: string | null;
  outgoing_url?: string | null;
  bot_type?: string;
}

/** The internal APIs of the contacts service and the gateway this service relies on. */
export class Peers {
  constructor(private readonly config: ConversationsConfig) {}

  /** Internal calls go out as this service (the gateway's internal API accepts services only). */
  private sys(ctx: RequestContext, accountId: number | null): RequestContext {
    return systemContext('conversations', accountId, ctx.requestId);
  }

  resolveContactInbox(ctx: RequestContext, accountId: number, body: { inbox_id: number; contact_id?: number; source_id?: string; hmac_verified?: boolean }): Promise<ResolvedContactInbox> {
    return callService<ResolvedContactInbox>(this.config.CONTACTS_URL, `/internal/accounts/${accountId}/contact_inboxes/resolve`, this.sys(ctx, accountId), this.config.INTERNAL_SECRET, { method: 'POST', body });
  }

  contactInbox(ctx: RequestContext, inboxId: number, sourceId: string): Promise<ResolvedContactInbox> {
    return callService<ResolvedContactInbox>(this.config.CONTACTS_URL, `/internal/inboxes/${inboxId}/contact_inboxes/${encodeURIComponent(sourceId)}`, this.sys(ctx, ctx.accountId), this.config.INTERNAL_SECRET);
  }

  contact(ctx: RequestContext, accountId: number, contactId: number): Promise<ContactSnapshot> {
    return callService<ContactSnapshot>(this.config.CONTACTS_URL, `/internal/accounts/${accountId}/contacts/${contactId}`, this.sys(ctx, accountId), this.config.INTERNAL_SECRET);
  }

  agent(ctx: RequestContext, accountId: number, userId: number): Promise<Agent> {
    return callService<Agent>(this.config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/agents/${userId}`, this.sys(ctx, accountId), this.config.INTERNAL_SECRET);
  }

  team(ctx: RequestContext, accountId: number, teamId: number): Promise<Team> {
    return callService<Team>(this.config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/teams/${teamId}`, this.sys(ctx, accountId), this.config.INTERNAL_SECRET);
  }

  agentBot(ctx: RequestContext, accountId: number, botId: number): Promise<AgentBot> {
    return callService<AgentBot>(this.config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/agent_bots/${botId}`, this.sys(ctx, accountId), this.config.INTERNAL_SECRET);
  }
}
