import { createHash } from 'node:crypto';
import type { Command, CommandAnswer, Logger } from '@parley/shared';
import { copiesOf } from '../projections/copies';
import type { AutomationConfig } from '../config';

/** docs/contracts.md "Commands": what the conversations service runs for automation (the contract's own types). */
export type { Command, CommandAnswer } from '@parley/shared';

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
 * `POST /internal/accounts/{a}/conversations/{id}/commands` on the conversations service, through
 * the one peers client (signed as this service, the answer parsed against CommandAnswer). The
 * body names the rule as the actor, and the events the command causes carry it, so they never
 * trigger rules (docs/contracts.md).
 */
export async function sendCommand(deps: { config: AutomationConfig; log: Logger }, c: SendCommand): Promise<CommandAnswer> {
  const actor = { type: 'automation_rule' as const, id: c.ruleId, name: c.ruleName };
  return copiesOf(deps).peers.conversations.command(
    c.accountId,
    c.conversationId,
    { idempotency_key: idempotencyKey(c.ruleId, c.eventId, c.actionIndex), actor, causation_id: c.eventId, command: c.command },
    { requestId: c.requestId, timeoutMs: deps.config.COMMAND_TIMEOUT_MS },
  );
}
