import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { PLATFORM_TOKEN, type Stack } from './stack';

export interface SeededUser {
  userId: number;
  token: string;
  email: string;
  name: string;
}

export interface SeededAccount {
  accountId: number;
  admin: SeededUser;
  agent: SeededUser;
  /** Adds another member (or a bot) to this account. */
  addUser(role: 'administrator' | 'agent'): Promise<SeededUser>;
  addBot(): Promise<{ botId: number; token: string }>;
}

/** A JSON call through the gateway that must succeed (a factory's failure is the test's setup failing). */
async function must<T>(stack: Stack, method: string, p: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(stack.gatewayUrl + p, {
    method,
    headers: { 'content-type': 'application/json', api_access_token: token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`seedAccount: ${method} ${p} answered ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * Test factory: an account with an administrator and an agent, made the way an integrator
 * makes them: through the gateway's Platform API (account, users, memberships) and the account
 * API (bots). The services learn of them from the events those calls publish, so every test
 * exercises the projections (and their read-through when a test is faster than the events).
 * Each call makes a new account with random names, so tests never share data.
 */
export async function seedAccount(stack: Stack, opts: { features?: Record<string, boolean> } = {}): Promise<SeededAccount> {
  const account = await must<{ id: number }>(stack, 'POST', '/platform/api/v1/accounts', PLATFORM_TOKEN, {
    name: `Acme ${randomBytes(3).toString('hex')}`,
    features: opts.features ?? { audit_logs: true },
  });
  const accountId = account.id;
  const addUser = async (role: 'administrator' | 'agent'): Promise<SeededUser> => {
    const suffix = randomBytes(4).toString('hex');
    const name = `${role === 'administrator' ? 'Admin' : 'Agent'} ${suffix}`;
    const email = `${role}-${suffix}@example.com`;
    const user = await must<{ id: number; access_token: string }>(stack, 'POST', '/platform/api/v1/users', PLATFORM_TOKEN, { name, email });
    await must(stack, 'POST', `/platform/api/v1/accounts/${accountId}/account_users`, PLATFORM_TOKEN, { user_id: user.id, role });
    return { userId: user.id, token: user.access_token, email, name };
  };
  const admin = await addUser('administrator');
  const agent = await addUser('agent');
  const addBot = async () => {
    const bot = await must<{ id: number; access_token: string }>(stack, 'POST', `/api/v1/accounts/${accountId}/agent_bots`, admin.token, {
      name: `Bot ${randomBytes(3).toString('hex')}`,
    });
    return { botId: bot.id, token: bot.access_token };
  };
  return { accountId, admin, agent, addUser, addBot };
}

/**
 * The same account written straight into the gateway's identity tables, for the few tests whose
 * point forbids the API calls seeding makes: a gateway with a per-token limit of 3 requests would
 * refuse the Platform token's sixth call, and the audit log tests script an exact history (the
 * API's seeding adds its own AccountUser entries). No events: nothing downstream knows of it until it asks.
 */
export async function seedAccountDirectly(stack: Stack, opts: { features?: Record<string, boolean> } = {}): Promise<SeededAccount> {
  const db = new Client({ connectionString: stack.env.db.url });
  await db.connect();
  try {
    const acc = await db.query<{ id: number }>('INSERT INTO gateway.accounts (name, features) VALUES ($1, $2) RETURNING id', [
      `Acme ${randomBytes(3).toString('hex')}`,
      JSON.stringify(opts.features ?? { audit_logs: true }),
    ]);
    const accountId = (acc.rows[0] as { id: number }).id;
    const addUser = async (role: 'administrator' | 'agent'): Promise<SeededUser> => {
      const c = new Client({ connectionString: stack.env.db.url });
      await c.connect();
      try {
        const suffix = randomBytes(4).toString('hex');
        const name = `${role === 'administrator' ? 'Admin' : 'Agent'} ${suffix}`;
        const email = `${role}-${suffix}@example.com`;
        const u = await c.query<{ id: number }>('INSERT INTO gateway.users (name, email) VALUES ($1, $2) RETURNING id', [name, email]);
        const userId = (u.rows[0] as { id: number }).id;
        await c.query('INSERT INTO gateway.account_users (account_id, user_id, role) VALUES ($1, $2, $3)', [accountId, userId, role]);
        const token = randomBytes(18).toString('base64url');
        await c.query(`INSERT INTO gateway.access_tokens (owner_type, owner_id, token) VALUES ('User', $1, $2)`, [userId, token]);
        return { userId, token, email, name };
      } finally {
        await c.end();
      }
    };
    const addBot = async () => {
      const c = new Client({ connectionString: stack.env.db.url });
      await c.connect();
      try {
        const b = await c.query<{ id: number }>('INSERT INTO gateway.agent_bots (account_id, name) VALUES ($1, $2) RETURNING id', [accountId, `Bot ${randomBytes(3).toString('hex')}`]);
        const botId = (b.rows[0] as { id: number }).id;
        const token = randomBytes(18).toString('base64url');
        await c.query(`INSERT INTO gateway.access_tokens (owner_type, owner_id, token) VALUES ('AgentBot', $1, $2)`, [botId, token]);
        return { botId, token };
      } finally {
        await c.end();
      }
    };
    const admin = await addUser('administrator');
    const agent = await addUser('agent');
    return { accountId, admin, agent, addUser, addBot };
  } finally {
    await db.end();
  }
}
