import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { UnavailableError } from './errors';
import { serviceEntry } from './registry';
import { systemContext } from './context';
import { callService } from './internal-client';
import {
  accountContract,
  agentBotContract,
  agentContract,
  commandAnswerContract,
  agentInboxesContract,
  contactContract,
  conversationContract,
  inboxContract,
  resolvedContactInboxContract,
  teamContract,
  teamMemberIdsContract,
  type CommandRequest,
  type PubsubAgentRequest,
  type ResolveContactInbox,
} from './contracts';
import { describeIssues, parseContract } from './contracts/common';

/** The services with an internal API, and the config key holding each one's base URL: the one owner URL map. */
export const PEER_URL_KEYS = {
  identity: serviceEntry('gateway').urlKey,
  conversations: serviceEntry('conversations').urlKey,
  contacts: serviceEntry('contacts').urlKey,
} as const;
export type PeerName = keyof typeof PEER_URL_KEYS;

export type PeersConfig = { INTERNAL_SECRET: string; PEER_LOOKUP_TIMEOUT_MS?: number } & Record<(typeof PEER_URL_KEYS)[PeerName], string>;

export interface PeerCallOptions {
  /** Carried as the call's request id (the request or event that needs the answer). */
  requestId?: string;
  timeoutMs?: number;
}

/**
 * One typed client for every internal API (docs/contracts.md). Each call is signed as the
 * calling service (`systemContext`), goes through the kernel's `callService` (peer errors come
 * back as AppErrors with their status and code; an unreachable peer is 503) and its answer is
 * parsed against the owner's contract: an answer the contract does not describe is 503, never a
 * half-read record.
 */
export function createPeers(service: string, config: PeersConfig) {
  const call = async <S extends z.ZodType>(
    peer: PeerName,
    schema: S,
    path: string,
    accountId: number | null,
    opts: PeerCallOptions = {},
    init: { method?: string; body?: unknown; timeoutMs?: number } = {},
  ): Promise<z.infer<S>> => {
    const ctx = systemContext(service, accountId, opts.requestId ?? randomUUID());
    const timeoutMs = opts.timeoutMs ?? init.timeoutMs;
    const answer = await callService(config[PEER_URL_KEYS[peer]], path, ctx, config.INTERNAL_SECRET, { method: init.method, body: init.body, timeoutMs });
    const parsed = parseContract(schema, answer);
    if (!parsed.success) throw new UnavailableError(`The ${peer} service answered ${path} with what its contract does not describe (${describeIssues(parsed.error)})`);
    return parsed.data;
  };
  const lookup = { timeoutMs: config.PEER_LOOKUP_TIMEOUT_MS };
  const q = encodeURIComponent;
  return {
    identity: {
      account: (accountId: number, o?: PeerCallOptions) => call('identity', accountContract, `/internal/accounts/${accountId}`, accountId, o, lookup),
      agents: (accountId: number, o?: PeerCallOptions) => call('identity', z.array(agentContract), `/internal/accounts/${accountId}/agents`, accountId, o, lookup),
      agent: (accountId: number, userId: number, o?: PeerCallOptions) => call('identity', agentContract, `/internal/accounts/${accountId}/agents/${userId}`, accountId, o, lookup),
      team: (accountId: number, teamId: number, o?: PeerCallOptions) => call('identity', teamContract, `/internal/accounts/${accountId}/teams/${teamId}`, accountId, o, lookup),
      teamMembers: (accountId: number, teamId: number, o?: PeerCallOptions) => call('identity', teamMemberIdsContract, `/internal/accounts/${accountId}/teams/${teamId}/members`, accountId, o, lookup),
      agentBot: (accountId: number, botId: number, o?: PeerCallOptions) => call('identity', agentBotContract, `/internal/accounts/${accountId}/agent_bots/${botId}`, accountId, o, lookup),
      /** The user of a realtime `pubsub_token` as an agent of the account; 404 when they do not match. */
      pubsubAgent: (body: PubsubAgentRequest, o?: PeerCallOptions) => call('identity', agentContract, '/internal/pubsub/agents/resolve', body.account_id, o, { ...lookup, method: 'POST', body }),
    },
    conversations: {
      inbox: (accountId: number, inboxId: number, o?: PeerCallOptions) => call('conversations', inboxContract, `/internal/accounts/${accountId}/inboxes/${inboxId}`, accountId, o, lookup),
      inboxByIdentifier: (identifier: string, o?: PeerCallOptions) => call('conversations', inboxContract, `/internal/inboxes/by_identifier/${q(identifier)}`, null, o, lookup),
      conversation: (accountId: number, displayId: number, o?: PeerCallOptions) =>
        call('conversations', conversationContract, `/internal/accounts/${accountId}/conversations/${displayId}`, accountId, o, lookup),
      /** The inboxes a user is a member of in the account (agents see those inboxes' conversations). */
      agentInboxes: (accountId: number, userId: number, o?: PeerCallOptions) => call('conversations', agentInboxesContract, `/internal/accounts/${accountId}/agents/${userId}/inboxes`, accountId, o, lookup),
      /** Runs an automation command once per idempotency key (docs/contracts.md "Commands"). */
      command: (accountId: number, displayId: number, body: CommandRequest, o?: PeerCallOptions) =>
        call('conversations', commandAnswerContract, `/internal/accounts/${accountId}/conversations/${displayId}/commands`, accountId, o, { method: 'POST', body }),
    },
    contacts: {
      contact: (accountId: number, contactId: number, o?: PeerCallOptions) => call('contacts', contactContract, `/internal/accounts/${accountId}/contacts/${contactId}`, accountId, o, lookup),
      resolveContactInbox: (accountId: number, body: ResolveContactInbox, o?: PeerCallOptions) =>
        call('contacts', resolvedContactInboxContract, `/internal/accounts/${accountId}/contact_inboxes/resolve`, accountId, o, { method: 'POST', body }),
      /** A contact inbox by id (the realtime channel's `source_id` of pairs older than it). */
      contactInboxById: (accountId: number, contactInboxId: number, o?: PeerCallOptions) =>
        call('contacts', resolvedContactInboxContract, `/internal/accounts/${accountId}/contact_inboxes/${contactInboxId}`, accountId, o, lookup),
      contactInbox: (inboxId: number, sourceId: string, o?: PeerCallOptions & { accountId?: number | null }) =>
        call('contacts', resolvedContactInboxContract, `/internal/inboxes/${inboxId}/contact_inboxes/${q(sourceId)}`, o?.accountId ?? null, o, lookup),
      /** The contact inboxes of a realtime `pubsub_token` (a contact's `RoomChannel` subscription); 404 unknown. */
      pubsubContactInbox: (pubsubToken: string, o?: PeerCallOptions) =>
        call('contacts', resolvedContactInboxContract, '/internal/pubsub/contact_inboxes/resolve', null, o, { ...lookup, method: 'POST', body: { pubsub_token: pubsubToken } }),
    },
  };
}

export type Peers = ReturnType<typeof createPeers>;
