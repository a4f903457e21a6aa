import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { verifyContext, type RequestContext } from '@parley/shared';
import { TEST_SECRET } from '@parley/testkit';

/**
 * A tiny stand-in for the peers' internal APIs (docs/contracts.md), for service-level tests
 * only: the conversations command endpoint and inbox lookup, the contacts lookup and the
 * gateway's account lookup. It keeps conversations in memory and applies commands to them,
 * honouring idempotency keys the way the contract says.
 */
export interface CommandCall {
  accountId: number;
  conversationId: number;
  body: any;
  ctx: RequestContext;
  applied: boolean;
}

export interface PeerStub {
  url: string;
  conversations: Map<string, Record<string, any>>;
  inboxes: Map<string, Record<string, any>>;
  contacts: Map<string, Record<string, any>>;
  /** The gateway's agents, teams and agent bots, by `${accountId}:${id}`. */
  agents: Map<string, Record<string, any>>;
  teams: Map<string, Record<string, any>>;
  bots: Map<string, Record<string, any>>;
  /** Lookups of agents, teams and agent_bots asked so far, and the kinds that never answer. */
  lookups: Record<'agents' | 'teams' | 'agent_bots', number>;
  hang: Set<'agents' | 'teams' | 'agent_bots'>;
  accounts: Map<number, { id: number; name: string }>;
  commands: CommandCall[];
  contactLookups: number;
  /** Return a status to fail a command with (before it is applied), or null to run it. */
  failCommand: ((call: { accountId: number; conversationId: number; body: any }) => number | null) | null;
  close(): Promise<void>;
}

const key = (a: number | string, id: number | string) => `${a}:${id}`;

export async function startPeerStub(): Promise<PeerStub> {
  const app = express();
  app.use(express.json());
  const seen = new Set<string>();
  const stub: PeerStub = {
    url: '',
    conversations: new Map(),
    inboxes: new Map(),
    contacts: new Map(),
    agents: new Map(),
    teams: new Map(),
    bots: new Map(),
    lookups: { agents: 0, teams: 0, agent_bots: 0 },
    hang: new Set(),
    accounts: new Map(),
    commands: [],
    contactLookups: 0,
    failCommand: null,
    close: async () => undefined,
  };
  const notFound = (res: express.Response) => res.status(404).json({ description: 'not found', errors: [{ field: '', message: 'not found', code: 'not_found' }] });
  app.use((req, res, next) => {
    const ctx = verifyContext(req.headers, TEST_SECRET);
    if (!ctx) return res.status(401).json({ description: 'unsigned', errors: [{ field: '', message: 'unsigned', code: 'unauthorized' }] });
    res.locals['ctx'] = ctx;
    next();
  });
  app.get('/internal/accounts/:a', (req, res) => {
    const acc = stub.accounts.get(Number(req.params.a));
    if (!acc) return notFound(res);
    res.json({ ...acc, status: 'active', features: {}, locale: 'en' });
  });
  for (const [path, map] of [
    ['agents', stub.agents],
    ['teams', stub.teams],
    ['agent_bots', stub.bots],
  ] as const) {
    app.get(`/internal/accounts/:a/${path}/:id`, (req, res) => {
      stub.lookups[path] += 1;
      if (stub.hang.has(path)) return;
      const rec = map.get(key(req.params.a, req.params.id));
      if (!rec) return notFound(res);
      res.json(rec);
    });
  }
  app.get('/internal/accounts/:a/inboxes/:id', (req, res) => {
    const inbox = stub.inboxes.get(key(req.params.a, req.params.id));
    if (!inbox) return notFound(res);
    res.json(inbox);
  });
  app.get('/internal/accounts/:a/contacts/:id', (req, res) => {
    stub.contactLookups += 1;
    const c = stub.contacts.get(key(req.params.a, req.params.id));
    if (!c) return notFound(res);
    res.json(c);
  });
  app.post('/internal/accounts/:a/conversations/:id/commands', (req, res) => {
    const accountId = Number(req.params.a);
    const conversationId = Number(req.params.id);
    const body = req.body;
    const fail = stub.failCommand?.({ accountId, conversationId, body }) ?? null;
    if (fail) return res.status(fail).json({ description: 'failing on purpose', errors: [{ field: '', message: 'failing', code: fail >= 500 ? 'unavailable' : fail === 404 ? 'not_found' : 'invalid' }] });
    const conv = stub.conversations.get(key(accountId, conversationId));
    if (!conv) return notFound(res);
    const applied = !seen.has(body.idempotency_key);
    seen.add(body.idempotency_key);
    stub.commands.push({ accountId, conversationId, body, ctx: res.locals['ctx'] as RequestContext, applied });
    if (applied) {
      const c = body.command;
      switch (c.type) {
        case 'add_labels':
          conv['labels'] = [...new Set([...conv['labels'], ...c.labels])];
          break;
        case 'remove_labels':
          conv['labels'] = conv['labels'].filter((l: string) => !c.labels.includes(l));
          break;
        case 'assign_agent':
          conv['assignee_id'] = c.assignee_id;
          break;
        case 'assign_team':
          conv['team_id'] = c.team_id;
          break;
        case 'change_priority':
          conv['priority'] = c.priority;
          break;
        case 'change_status':
          conv['status'] = c.status;
          break;
        case 'mute':
          conv['muted'] = true;
          conv['status'] = 'resolved';
          break;
        default:
          break;
      }
    }
    res.json({ applied, conversation: conv });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

/** A conversation snapshot (docs/contracts.md) with test-chosen fields. */
export function conversation(accountId: number, id: number, extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    id,
    display_id: id,
    uuid: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
    account_id: accountId,
    inbox_id: 1,
    status: 'open',
    priority: null,
    labels: [],
    assignee_id: null,
    team_id: null,
    contact_id: 1,
    contact_inbox_id: 1,
    snoozed_until: null,
    custom_attributes: {},
    additional_attributes: {},
    muted: false,
    waiting_since: null,
    first_reply_created_at: null,
    last_activity_at: Math.floor(Date.now() / 1000),
    created_at: Math.floor(Date.now() / 1000),
    ...extra,
  };
}

let messageSeq = 1000;
/** A message snapshot inside its conversation. */
export function message(conv: Record<string, any>, extra: Record<string, unknown> = {}): Record<string, any> {
  messageSeq += 1;
  return {
    id: messageSeq,
    account_id: conv['account_id'],
    inbox_id: conv['inbox_id'],
    conversation_id: conv['id'],
    message_type: 0,
    content: 'hello',
    content_type: 'text',
    content_attributes: {},
    private: false,
    status: 'sent',
    sender_type: 'Contact',
    sender_id: conv['contact_id'],
    source_id: null,
    created_at: Math.floor(Date.now() / 1000),
    conversation: { ...conv },
    ...extra,
  };
}

export function contact(accountId: number, id: number, extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    id,
    account_id: accountId,
    name: 'Jane Doe',
    email: 'jane@example.com',
    phone_number: '+15550001111',
    identifier: null,
    thumbnail: '',
    avatar_url: '',
    additional_attributes: { city: 'Lisbon', country_code: 'PT', company_name: 'Acme' },
    custom_attributes: {},
    blocked: false,
    availability_status: 'offline',
    last_activity_at: null,
    created_at: Math.floor(Date.now() / 1000),
    ...extra,
  };
}

export function apiInbox(accountId: number, id: number, extra: Record<string, unknown> = {}): Record<string, any> {
  return {
    id,
    account_id: accountId,
    name: `API inbox ${id}`,
    channel_type: 'Channel::Api',
    channel_id: id,
    identifier: `inbox-${id}`,
    hmac_token: `hmac-${id}-secret`,
    hmac_mandatory: false,
    webhook_url: null,
    avatar_url: '',
    provider: null,
    ...extra,
  };
}

export { agentSnapshot as agent } from '@parley/testkit';
