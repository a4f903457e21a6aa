import type { Agent } from './peers';
import type { AgentResponse } from '../inboxes/schemas';

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/**
 * Chatwoot's agent partial from the projection (docs/contracts.md `Agent`). An agent the
 * projection does not know (gateway unreachable) is shown by id with neutral values.
 */
export function agentPartial(a: Agent | undefined, id: number): AgentResponse {
  return {
    id,
    account_id: typeof a?.account_id === 'number' ? a.account_id : null,
    availability_status: str(a?.['availability_status'], 'offline'),
    auto_offline: typeof a?.['auto_offline'] === 'boolean' ? (a['auto_offline'] as boolean) : true,
    confirmed: typeof a?.['confirmed'] === 'boolean' ? (a['confirmed'] as boolean) : true,
    email: typeof a?.email === 'string' ? a.email : null,
    provider: str(a?.['provider'], 'email'),
    available_name: str(a?.['available_name'], str(a?.name)),
    name: str(a?.name),
    role: str(a?.role, 'agent'),
    thumbnail: str(a?.['thumbnail']),
    custom_role_id: typeof a?.['custom_role_id'] === 'number' ? (a['custom_role_id'] as number) : null,
  };
}
