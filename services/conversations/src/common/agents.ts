import type { Agent } from './peers';
import type { AgentResponse } from '../inboxes/schemas';

const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/**
 * Chatwoot's agent partial from the projection (docs/contracts.md `Agent`), plus the public
 * fields of SPEC's User (`avatar_url`, `display_name`); never a credential. An agent the
 * projection does not know (gateway unreachable) is shown by id with neutral values.
 */
export function agentPartial(a: Agent | undefined, id: number): AgentResponse {
  const name = str(a?.name);
  const available = str(a?.['available_name'], name);
  // The gateway's Agent has no display_name: available_name is display_name || name.
  const displayName = typeof a?.['display_name'] === 'string' ? (a['display_name'] as string) : available !== name ? available : null;
  return {
    id,
    account_id: typeof a?.account_id === 'number' ? a.account_id : null,
    availability_status: str(a?.['availability_status'], 'offline'),
    auto_offline: typeof a?.['auto_offline'] === 'boolean' ? (a['auto_offline'] as boolean) : true,
    confirmed: typeof a?.['confirmed'] === 'boolean' ? (a['confirmed'] as boolean) : true,
    email: typeof a?.email === 'string' ? a.email : null,
    provider: str(a?.['provider'], 'email'),
    available_name: available,
    name,
    role: str(a?.role, 'agent'),
    thumbnail: str(a?.['thumbnail']),
    avatar_url: str(a?.['thumbnail']),
    display_name: displayName || null,
    custom_role_id: typeof a?.['custom_role_id'] === 'number' ? (a['custom_role_id'] as number) : null,
  };
}
