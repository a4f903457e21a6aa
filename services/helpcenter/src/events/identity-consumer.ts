import type { PoolClient } from 'pg';
import { z } from 'zod';
import { PoisonMessageError, type ConsumerSpec, type EventEnvelope } from '@parley/shared';
import { deleteAuthorsOfAccount, refreshUser, upsertAuthor, type AgentData } from '../authors/repository';
import { deletePortalsOfAccount } from '../portals/repository';

const agentData = z.looseObject({ id: z.number().int(), account_id: z.number().int().optional() });
const userData = z.looseObject({ id: z.number().int(), name: z.string().optional(), display_name: z.string().nullable().optional(), email: z.string().optional() });
const accountData = z.looseObject({ id: z.number().int() });

/**
 * Keeps the author display projection fresh and cascades account deletion. `agent.removed`
 * is deliberately ignored: articles keep showing who wrote them after the author leaves.
 */
export async function handleIdentityEvent(tx: PoolClient, event: EventEnvelope): Promise<void> {
  switch (event.type) {
    case 'agent.added':
    case 'agent.updated': {
      const d = agentData.safeParse(event.data);
      const accountId = event.account_id ?? (d.success ? d.data.account_id : undefined);
      if (!d.success || accountId === undefined) throw new PoisonMessageError(`${event.type} without agent id or account`);
      await upsertAuthor(tx, accountId, d.data.id, d.data as AgentData);
      return;
    }
    case 'user.updated': {
      const d = userData.safeParse(event.data);
      if (!d.success) throw new PoisonMessageError('user.updated without a user id');
      const patch: Record<string, unknown> = {};
      if (d.data.name !== undefined) patch['name'] = d.data.name;
      if (d.data.email !== undefined) patch['email'] = d.data.email;
      if (d.data.name !== undefined || d.data.display_name !== undefined) patch['available_name'] = d.data.display_name || d.data.name;
      if (Object.keys(patch).length > 0) await refreshUser(tx, d.data.id, patch);
      return;
    }
    case 'account.deleted': {
      const d = accountData.safeParse(event.data);
      const accountId = event.account_id ?? (d.success ? d.data.id : undefined);
      if (accountId === undefined) throw new PoisonMessageError('account.deleted without an account id');
      await deletePortalsOfAccount(tx, accountId);
      await deleteAuthorsOfAccount(tx, accountId);
      return;
    }
    default:
      return;
  }
}

export const identityConsumer: ConsumerSpec = {
  name: 'identity',
  bindings: ['agent.added', 'agent.updated', 'user.updated', 'account.deleted'],
  handle: handleIdentityEvent,
};
