import { createHash } from 'node:crypto';
import { callService, systemContext, type Actor } from '@parley/shared';
import type { AutomationConfig } from '../config';

/** docs/contracts.md: the commands the conversations service runs for automation. */
export type Command =
  | { type: 'add_labels'; labels: string[] }
  | { type: 'remove_labels'; labels: string[] }
  | { type: 'assign_agent'; assignee_id: number | null }
  | { type: 'assign_team'; team_id: number | null }
  | { type: 'change_priority'; priority: 'low' | 'medium' | 'high' | 'urgent' | null }
  | { type: 'change_status'; status: 'open' | 'resolved' | 'pending' | 'snoozed'; snoozed_until?: string | null }
  | { type: 'mute' }
  | { type: 'send_message'; content: string; private: boolean };

export interface CommandAnswer {
  applied: boolean;
  conversation: Record<string, unknown>;
}

/**
 * The key that makes an action run once: derived from the rule, the event and the action's
 * place in the rule, so a redelivered event (or one retried after a crash mid-rule) sends the
 * same keys and the conversations service skips what it ran already.
 */
export function idempotencyKey(ruleId: number, eventId: string, actionIndex: number): string {
  return createHash('sha256').update(`automation_rule:${ruleId}:event:${eventId}:action:${actionIndex}`).digest('hex');
}

export interface SendCommand {
  accountId: number;
  conversationId: number;
  ruleId: number;
  ruleName: string;
  eventId: string;
  requestId: string;
  actionIndex: number;
  command: Command;
}

/**
 * `POST /internal/accounts/{a}/conversations/{id}/commands` on the conversations service.
 * The call is signed as this service (internal APIs answer services only); the body names
 * the rule as the actor, and the events the command causes carry it, so they never trigger
 * rules (docs/contracts.md).
 */
export async function sendCommand(config: AutomationConfig, c: SendCommand): Promise<CommandAnswer> {
  const actor: Actor = { type: 'automation_rule', id: c.ruleId, name: c.ruleName };
  return callService<CommandAnswer>(
    config.CONVERSATIONS_URL,
    `/internal/accounts/${c.accountId}/conversations/${c.conversationId}/commands`,
    systemContext('automation', c.accountId, c.requestId),
    config.INTERNAL_SECRET,
    {
      method: 'POST',
      timeoutMs: config.COMMAND_TIMEOUT_MS,
      body: { idempotency_key: idempotencyKey(c.ruleId, c.eventId, c.actionIndex), actor, causation_id: c.eventId, command: c.command },
    },
  );
}
