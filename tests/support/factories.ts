import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Stack } from './stack';

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

/**
 * Test factory: an account with an administrator and an agent, written straight into the
 * gateway's identity tables (the Platform API tests cover the real bootstrap path). Each
 * call makes a new account with random names, so tests never share data.
 */
export async function seedAccount(stack: Stack, opts: { features?: Record<string, boolean> } = {}): Promise<SeededAccount> {
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
