import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  accountContract,
  agentBotContract,
  agentContract,
  commandRequestContract,
  contactContract,
  conversationContract,
  inboxContract,
  resolveContactInboxRequest,
  teamContract,
  verifyContext,
  type Account,
  type Agent,
  type AgentBot,
  type CommandRequest,
  type ContactInbox,
  type ContactSnapshot,
  type ConversationSnapshot,
  type Inbox,
  type RequestContext,
  type Team,
} from '@parley/shared';
import { TEST_SECRET } from './helpers';
import { accountFixture, agentSnapshot, contactFixture, contactInboxFixture, inboxFixture } from './fixtures';

/** The internal APIs a stub can answer, by owner (docs/contracts.md). */
export type StubResource = 'accounts' | 'agents' | 'teams' | 'agent_bots' | 'inboxes' | 'conversations' | 'commands' | 'contacts' | 'contact_inboxes';

export interface StubCommandCall {
  accountId: number;
  conversationId: number;
  body: CommandRequest;
  ctx: RequestContext;
  applied: boolean;
}

/**
 * One stand-in for every owner's internal API (identity, conversations, contacts), for a
 * service's own tests: what it answers is kept in maps the test fills through helpers that
 * parse each record by its contract, so the stub never answers what no owner would. Like the
 * real services it answers only callers signed as a service (else 401), the Error body for
 * unknown records (404 `not_found`) and routes (404 `route_not_found`). End-to-end tests run
 * the real services instead.
 */
export interface PeerStub {
  url: string;
  /** Account-scoped maps are keyed `${accountId}:${id}` (`stubKey`). */
  accounts: Map<number, Account>;
  agents: Map<string, Agent>;
  teams: Map<string, Team>;
  bots: Map<string, AgentBot>;
  inboxes: Map<string, Inbox>;
  conversations: Map<string, ConversationSnapshot>;
  contacts: Map<string, ContactSnapshot>;
  contactInboxes: Array<ContactInbox & { account_id: number }>;
  /** Command calls, in order, with whether each was applied (a repeated idempotency key is not). */
  commands: StubCommandCall[];
  /** `METHOD /path` of every call, in order. */
  calls: string[];
  /** Lookups asked per resource. */
  lookups: Record<StubResource, number>;
  /** Resources that never answer (a hung peer). */
  hang: Set<StubResource>;
  /** Resources that answer 500 (a failing peer). */
  failing: Set<StubResource>;
  /** A status to fail a command with (before it is applied), or null to run it. */
  failCommand: ((call: { accountId: number; conversationId: number; body: CommandRequest }) => number | null) | null;

  addAccount(id: number, fields?: Partial<Account>): Account;
  addAgent(accountId: number, id: number, fields?: Partial<Agent>): Agent;
  removeAgent(accountId: number, id: number): void;
  addTeam(team: Team): Team;
  addBot(accountId: number, bot: AgentBot): AgentBot;
  addInbox(inbox: Inbox): Inbox;
  removeInbox(inbox: Pick<Inbox, 'account_id' | 'id'>): void;
  addConversation(conv: ConversationSnapshot): ConversationSnapshot;
  /** A contact with a new id unless `fields.id` says otherwise. */
  addContact(accountId: number, fields?: Partial<ContactSnapshot>): ContactSnapshot;
  /** A contact with a contact inbox in the inbox (what the public contact API creates). */
  addContactInInbox(accountId: number, inboxId: number, fields?: Partial<ContactSnapshot> & { source_id?: string; hmac_verified?: boolean }): { contact: ContactSnapshot; contactInbox: ContactInbox };
  close(): Promise<void>;
}

export const stubKey = (accountId: number | string, id: number | string): string => `${accountId}:${id}`;

const errorBody = (status: number, code: string, description: string, field = '') => ({ status, body: { description, errors: [{ field, message: description, code }] } });
const notFound = (what: string, field = '') => errorBody(404, 'not_found', `${what} could not be found`, field);

type Answer = { status: number; body: unknown } | 'hang';
type Route = { method: string; pattern: RegExp; resource: StubResource; run: (m: string[], body: any, ctx: RequestContext) => Answer };

export async function startPeerStub(): Promise<PeerStub> {
  let seq = 1000;
  const stub = {
    accounts: new Map(),
    agents: new Map(),
    teams: new Map(),
    bots: new Map(),
    inboxes: new Map(),
    conversations: new Map(),
    contacts: new Map(),
    contactInboxes: [],
    commands: [],
    calls: [],
    lookups: { accounts: 0, agents: 0, teams: 0, agent_bots: 0, inboxes: 0, conversations: 0, commands: 0, contacts: 0, contact_inboxes: 0 },
    hang: new Set(),
    failing: new Set(),
    failCommand: null,
  } as unknown as PeerStub;
  const seenKeys = new Set<string>();
  const ok = (body: unknown): Answer => ({ status: 200, body });
  const found = <T>(v: T | undefined, what: string, field = ''): Answer => (v === undefined ? notFound(what, field) : ok(v));
  const addContactInbox = (accountId: number, contactId: number, inboxId: number, sourceId?: string, hmacVerified = false) => {
    const ci = { ...contactInboxFixture(++seq, contactId, inboxId, { hmac_verified: hmacVerified, ...(sourceId ? { source_id: sourceId } : {}) }), account_id: accountId };
    stub.contactInboxes.push(ci);
    return ci;
  };
  const pair = (ci: ContactInbox & { account_id: number }) => {
    const { account_id: accountId, ...contactInbox } = ci;
    const contact = stub.contacts.get(stubKey(accountId, ci.contact_id));
    return contact ? { contact_inbox: contactInbox, contact } : undefined;
  };

  const routes: Route[] = [
    // identity (the gateway)
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)$/, resource: 'accounts', run: ([a]) => found(stub.accounts.get(Number(a)), 'Account', 'account_id') },
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/agents$/, resource: 'agents', run: ([a]) => ok([...stub.agents.values()].filter((x) => x.account_id === Number(a))) },
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/agents\/(\d+)$/, resource: 'agents', run: ([a, id]) => found(stub.agents.get(stubKey(a!, id!)), 'Agent', 'user_id') },
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/teams\/(\d+)$/, resource: 'teams', run: ([a, id]) => found(stub.teams.get(stubKey(a!, id!)), 'Team', 'team_id') },
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/agent_bots\/(\d+)$/, resource: 'agent_bots', run: ([a, id]) => found(stub.bots.get(stubKey(a!, id!)), 'Agent bot', 'bot_id') },
    // conversations
    {
      method: 'GET',
      pattern: /^\/internal\/inboxes\/by_identifier\/([^/]+)$/,
      resource: 'inboxes',
      run: ([identifier]) => found([...stub.inboxes.values()].find((i) => i.identifier === decodeURIComponent(identifier!)), 'Inbox', 'inbox_identifier'),
    },
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/inboxes\/(\d+)$/, resource: 'inboxes', run: ([a, id]) => found(stub.inboxes.get(stubKey(a!, id!)), 'Inbox', 'inbox_id') },
    {
      method: 'GET',
      pattern: /^\/internal\/accounts\/(\d+)\/conversations\/(\d+)$/,
      resource: 'conversations',
      run: ([a, id]) => found(stub.conversations.get(stubKey(a!, id!)), 'Conversation', 'conversation_id'),
    },
    {
      method: 'POST',
      pattern: /^\/internal\/accounts\/(\d+)\/conversations\/(\d+)\/commands$/,
      resource: 'commands',
      run: ([a, id], raw, ctx) => {
        const accountId = Number(a);
        const conversationId = Number(id);
        const parsed = commandRequestContract.safeParse(raw);
        if (!parsed.success) return errorBody(422, 'invalid', 'malformed command', 'command');
        const body = raw as CommandRequest;
        const fail = stub.failCommand?.({ accountId, conversationId, body }) ?? null;
        if (fail) return errorBody(fail, fail >= 500 ? 'unavailable' : fail === 404 ? 'not_found' : 'invalid', 'failing on purpose');
        const conv = stub.conversations.get(stubKey(accountId, conversationId));
        if (!conv) return notFound('Conversation', 'conversation_id');
        const applied = !seenKeys.has(body.idempotency_key);
        seenKeys.add(body.idempotency_key);
        stub.commands.push({ accountId, conversationId, body, ctx, applied });
        if (applied) applyCommand(conv, parsed.data.command);
        return ok({ applied, conversation: conv });
      },
    },
    // contacts
    { method: 'GET', pattern: /^\/internal\/accounts\/(\d+)\/contacts\/(\d+)$/, resource: 'contacts', run: ([a, id]) => found(stub.contacts.get(stubKey(a!, id!)), 'Contact', 'id') },
    {
      method: 'POST',
      pattern: /^\/internal\/accounts\/(\d+)\/contact_inboxes\/resolve$/,
      resource: 'contact_inboxes',
      run: ([a], raw) => {
        const accountId = Number(a);
        const parsed = resolveContactInboxRequest.safeParse(raw);
        if (!parsed.success) return errorBody(422, 'invalid', 'malformed resolve', 'inbox_id');
        const { inbox_id: inboxId, contact_id: contactId, source_id: sourceId, hmac_verified: hmac } = parsed.data;
        if (contactId === undefined) {
          const ci = stub.contactInboxes.find((x) => x.account_id === accountId && x.inbox_id === inboxId && x.source_id === sourceId);
          return found(ci && pair(ci), 'Contact inbox', 'source_id');
        }
        const contact = stub.contacts.get(stubKey(accountId, contactId));
        if (!contact) return notFound('Contact', 'contact_id');
        const mine = stub.contactInboxes.filter((x) => x.inbox_id === inboxId);
        if (sourceId) {
          const taken = mine.find((x) => x.source_id === sourceId);
          if (taken && taken.contact_id !== contactId) return errorBody(422, 'taken', 'source_id should be unique', 'source_id');
          if (taken) return ok(pair(taken));
        } else {
          const existing = mine.filter((x) => x.contact_id === contactId).at(-1);
          if (existing) return ok(pair(existing));
        }
        return ok(pair(addContactInbox(accountId, contactId, inboxId, sourceId, hmac ?? false)));
      },
    },
    {
      method: 'GET',
      pattern: /^\/internal\/inboxes\/(\d+)\/contact_inboxes\/([^/]+)$/,
      resource: 'contact_inboxes',
      run: ([inbox, source]) => {
        const ci = stub.contactInboxes.find((x) => x.inbox_id === Number(inbox) && x.source_id === decodeURIComponent(source!));
        return found(ci && pair(ci), 'Contact inbox', 'source_id');
      },
    },
  ];

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://stub').pathname;
      const method = req.method ?? 'GET';
      stub.calls.push(`${method} ${path}`);
      const ctx = verifyContext(req.headers, TEST_SECRET);
      if (!ctx || ctx.actor.type !== 'service') return send(res, 401, errorBody(401, 'unauthorized', 'Internal API is for services only').body);
      for (const route of routes) {
        const m = route.method === method ? route.pattern.exec(path) : null;
        if (!m) continue;
        stub.lookups[route.resource] += 1;
        if (stub.hang.has(route.resource)) return; // never answers; the caller times out
        if (stub.failing.has(route.resource)) return send(res, 500, errorBody(500, 'internal_error', 'failing on purpose').body);
        let body: unknown = undefined;
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        } catch {
          return send(res, 400, errorBody(400, 'malformed_json', 'malformed JSON').body);
        }
        const answer = route.run(m.slice(1), body, ctx);
        if (answer === 'hang') return;
        return send(res, answer.status, answer.body);
      }
      send(res, 404, errorBody(404, 'route_not_found', `No route ${method} ${path}`).body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  stub.addAccount = (id, fields = {}) => {
    const a = accountFixture(id, fields);
    stub.accounts.set(id, a);
    return a;
  };
  stub.addAgent = (accountId, id, fields = {}) => {
    const a = agentSnapshot(accountId, id, fields);
    stub.agents.set(stubKey(accountId, id), a);
    return a;
  };
  stub.removeAgent = (accountId, id) => void stub.agents.delete(stubKey(accountId, id));
  stub.addTeam = (team) => {
    const t = teamContract.parse(team);
    stub.teams.set(stubKey(t.account_id, t.id), t);
    return t;
  };
  stub.addBot = (accountId, bot) => {
    const b = agentBotContract.parse(bot);
    stub.bots.set(stubKey(accountId, b.id), b);
    return b;
  };
  stub.addInbox = (inbox) => {
    const i = inboxContract.parse(inbox);
    stub.inboxes.set(stubKey(i.account_id, i.id), i);
    return i;
  };
  stub.removeInbox = (inbox) => void stub.inboxes.delete(stubKey(inbox.account_id, inbox.id));
  stub.addConversation = (conv) => {
    const c = conversationContract.parse(conv);
    stub.conversations.set(stubKey(c.account_id, c.id), c);
    return c;
  };
  stub.addContact = (accountId, fields = {}) => {
    const c = contactFixture(accountId, fields.id ?? ++seq, fields);
    stub.contacts.set(stubKey(accountId, c.id), contactContract.parse(c));
    return c;
  };
  stub.addContactInInbox = (accountId, inboxId, fields = {}) => {
    const { source_id: sourceId, hmac_verified: hmac, ...rest } = fields;
    const contact = stub.addContact(accountId, rest);
    const { account_id: _a, ...contactInbox } = addContactInbox(accountId, contact.id, inboxId, sourceId, hmac ?? false);
    return { contact, contactInbox };
  };
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

/** What the conversations service does with a command, as far as its answer shows. */
function applyCommand(conv: ConversationSnapshot, c: ReturnType<typeof commandRequestContract.parse>['command']): void {
  switch (c.type) {
    case 'add_labels':
      conv.labels = [...new Set([...conv.labels, ...c.labels])];
      break;
    case 'remove_labels':
      conv.labels = conv.labels.filter((l) => !c.labels.includes(l));
      break;
    case 'assign_agent':
      conv.assignee_id = c.assignee_id;
      break;
    case 'assign_team':
      conv.team_id = c.team_id;
      break;
    case 'change_priority':
      conv.priority = c.priority;
      break;
    case 'change_status':
      conv.status = c.status;
      break;
    case 'mute':
      conv.muted = true;
      conv.status = 'resolved';
      break;
    default:
      break;
  }
}

