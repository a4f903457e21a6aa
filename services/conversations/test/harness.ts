import type { RunningService } from '@parley/shared';
import { asCaller, createTestEnv, randomAccountId, startPeerStub, startTestService, waitFor, type CtxInput, type PeerStub, type TestEnv } from '@parley/testkit';
import { conversationsConfigSchema, conversationsService, type ConversationsConfig } from '../src';
import { agentData, createBus, envelope, type TestBus } from './bus';

export interface Res {
  status: number;
  body: any;
  text: string;
}

export interface CallOpts {
  as?: CtxInput;
  body?: unknown;
  raw?: string;
  form?: FormData;
}

let userSeq = 0;
/** A user id unique within this process. */
export function newUserId(): number {
  userSeq += 1;
  return 50_000 + Math.floor(Math.random() * 100_000) * 10 + (userSeq % 10);
}

/** An account as the gateway would describe it: an administrator and an agent, known to the projections. */
export interface TestAccount {
  accountId: number;
  admin: CtxInput;
  agent: CtxInput;
  adminId: number;
  agentId: number;
}

/**
 * The conversations service on its own: a per-file database and bus namespace, the contacts
 * internal API stubbed (the testkit's peer stub), the gateway's internal API unreachable
 * (identity comes from events).
 */
export interface Harness {
  env: TestEnv;
  svc: RunningService<ConversationsConfig>;
  stub: PeerStub;
  bus: TestBus;
  call(method: string, path: string, opts?: CallOpts): Promise<Res>;
  /** Outbox events of an account, oldest first, optionally of some types. */
  events(accountId: number, ...types: string[]): Promise<any[]>;
  account(): Promise<TestAccount>;
  addAgent(accountId: number, userId?: number, role?: 'agent' | 'administrator'): Promise<number>;
  stop(): Promise<void>;
}

export async function startHarness(config: Record<string, unknown> = {}): Promise<Harness> {
  const env = await createTestEnv();
  const stub = await startPeerStub();
  const svc = await startTestService(
    conversationsService,
    conversationsConfigSchema.parse({ ...env.config, CONTACTS_URL: stub.url, GATEWAY_INTERNAL_URL: 'http://127.0.0.1:9', SNOOZE_POLL_MS: 200, ...config }),
  );
  const bus = createBus(env.namespace);

  const call = async (method: string, path: string, opts: CallOpts = {}): Promise<Res> => {
    const m = /^\/api\/v1\/accounts\/(\d+)/.exec(path);
    const headers: Record<string, string> = { ...asCaller({ accountId: m ? Number(m[1]) : null, ...(opts.as ?? {}) }) };
    let body: string | FormData | undefined;
    if (opts.form) body = opts.form;
    else if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] = 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(svc.url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  };

  const addAgent = async (accountId: number, userId = newUserId(), role: 'agent' | 'administrator' = 'agent'): Promise<number> => {
    await bus.publish(envelope('agent.added', accountId, agentData(accountId, userId, { role })));
    await waitFor(async () => (await svc.deps.pool.query(`SELECT 1 FROM projections WHERE kind = 'agent' AND account_id = $1 AND id = $2`, [accountId, userId])).rowCount, {
      what: `agent ${userId} projected`,
    });
    return userId;
  };

  return {
    env,
    svc,
    stub,
    bus,
    call,
    async events(accountId, ...types) {
      const { rows } = await svc.deps.pool.query<{ payload: any }>(
        `SELECT payload FROM outbox WHERE (payload->>'account_id')::int = $1 ${types.length ? 'AND routing_key = ANY($2::text[])' : ''} ORDER BY id`,
        types.length ? [accountId, types] : [accountId],
      );
      return rows.map((r) => r.payload);
    },
    async account() {
      const accountId = randomAccountId();
      const adminId = await addAgent(accountId, newUserId(), 'administrator');
      const agentId = await addAgent(accountId, newUserId(), 'agent');
      return {
        accountId,
        adminId,
        agentId,
        admin: { accountId, role: 'administrator', actor: { type: 'user', id: adminId, name: `Agent ${adminId}`, email: `agent${adminId}@example.com` } },
        agent: { accountId, role: 'agent', actor: { type: 'user', id: agentId, name: `Agent ${agentId}`, email: `agent${agentId}@example.com` } },
      };
    },
    addAgent,
    async stop() {
      await bus.close().catch(() => undefined);
      await svc.stop();
      await stub.close();
      await env.close();
    },
  };
}
