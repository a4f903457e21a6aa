import { ValidationError, prepared, sqlPrepared, type RequestContext, type SqlPrepared } from '@parley/shared';
import { CONVERSATION_COLUMNS, type ConversationRow } from '../common/rows';
import { priorityValue } from '../common/rows';
import { conversationSnapshot } from '../common/snapshots';
import { changeConversation, type Cause } from '../conversations/changes';
import type { ConversationPatch } from '../conversations/repository';
import { mutateConversation, type ConversationDeps } from '../conversations/service';
import { createMessage } from '../messages/service';
import type { Command, CommandInput } from './schemas';

/**
 * Automation's actions on a conversation (docs/contracts.md). Each idempotency key applies
 * once: the receipt is written in the same transaction as the change, by the statement that locks
 * the conversation's row, so a retried or concurrent duplicate finds it (a duplicate in flight
 * waits on the receipt's key) and changes nothing. The events a
 * command causes carry the rule as actor and the triggering event as causation.
 */
export async function runCommand(
  deps: ConversationDeps,
  callerCtx: RequestContext,
  accountId: number,
  displayId: number,
  input: CommandInput,
): Promise<{ applied: boolean; conversation: Record<string, unknown> }> {
  const ctx: RequestContext = { ...callerCtx, accountId, actor: { type: 'automation_rule', id: input.actor.id, name: input.actor.name ?? null }, role: null };
  const cause: Cause = { ctx, causationId: input.causation_id ?? null };
  const { command } = input;
  // Agents and teams are checked before the lock (the check may ask the gateway).
  if (command.type === 'assign_agent' && command.assignee_id !== null) {
    if (!(await deps.projections.memberAgents(ctx, accountId, [command.assignee_id])).has(command.assignee_id)) {
      throw ValidationError.field('command.assignee_id', 'is not an agent of this account', 'not_found');
    }
  }
  if (command.type === 'assign_team' && command.team_id !== null) {
    if (!(await deps.projections.teams(ctx, accountId, [command.team_id], true)).has(command.team_id)) {
      throw ValidationError.field('command.team_id', 'is not a team of this account', 'not_found');
    }
  }
  // The lock goes with the BEGIN, as a request's does (a rule sees every conversation of its
  // account), and so does the receipt (lockWithReceipt): the transaction holds its connection and
  // the row's lock a round trip less.
  const lock = lockWithReceiptSql(accountId, displayId, input.idempotency_key, command.type);
  return mutateConversation(
    deps.pool,
    cause,
    accountId,
    displayId,
    async (tx, locked) => {
      let conv = locked;
      let fresh: boolean;
      if (lock) {
        const { receipt_written: written, ...row } = locked as ConversationRow & { receipt_written: boolean };
        conv = row;
        fresh = written;
      } else {
        fresh = ((await tx.query(insertReceipt([accountId, input.idempotency_key, conv.id, command.type]))).rowCount ?? 0) > 0;
      }
      if (!fresh) return { applied: false, conversation: conversationSnapshot(conv) };
      const after = await apply(tx, cause, conv, command);
      return { applied: true, conversation: conversationSnapshot(after) };
    },
    lock,
  );
}

const insertReceipt = prepared(
  'INSERT INTO command_receipts (account_id, idempotency_key, conversation_id, command_type) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
);

/**
 * The conversation's locking read with the command's receipt written in the same statement. The
 * receipt is inserted before the row is locked: a duplicate of a command in flight waits on the
 * receipt's unique key until the first commits (then writes nothing: `receipt_written` false) or
 * rolls back (then writes it), as it waited on the row's lock before. No conversation: no receipt
 * (and a 404, which rolls back anyway).
 */
const lockWithReceipt = sqlPrepared(
  `WITH r AS (
     INSERT INTO command_receipts (account_id, idempotency_key, conversation_id, command_type)
     SELECT c.account_id, $3::text, c.id, $4::text FROM conversations c WHERE c.account_id = $1::int AND c.display_id = $2::int
     ON CONFLICT DO NOTHING RETURNING 1
   )
   SELECT ${CONVERSATION_COLUMNS}, EXISTS (SELECT 1 FROM r) AS receipt_written
     FROM conversations WHERE account_id = $1::int AND display_id = $2::int FOR UPDATE`,
);

function lockWithReceiptSql(accountId: number, displayId: number, key: string, type: string): SqlPrepared | null {
  // A NUL cannot be inlined (Postgres refuses the message: a 503 retried for ever); the route
  // answers 422 for one, and any other caller gets the bound statement's own refusal.
  if (!Number.isSafeInteger(accountId) || !Number.isSafeInteger(displayId) || key.includes('\u0000')) return null;
  return lockWithReceipt([accountId, displayId, key, type]);
}

async function apply(tx: Parameters<typeof changeConversation>[0], cause: Cause, conv: ConversationRow, command: Command): Promise<ConversationRow> {
  let patch: ConversationPatch;
  switch (command.type) {
    case 'add_labels':
      patch = { labels: [...new Set([...conv.labels, ...command.labels])] };
      break;
    case 'remove_labels':
      patch = { labels: conv.labels.filter((l) => !command.labels.includes(l)) };
      break;
    case 'assign_agent':
      patch = { assignee_id: command.assignee_id };
      break;
    case 'assign_team':
      patch = { team_id: command.team_id };
      break;
    case 'change_priority':
      patch = { priority: priorityValue(command.priority) };
      break;
    case 'change_status': {
      const until = command.status === 'snoozed' && command.snoozed_until ? new Date(command.snoozed_until) : null;
      patch = { status: command.status, snoozed_until: until };
      break;
    }
    case 'mute':
      patch = { muted: true, status: 'resolved' };
      break;
    case 'send_message': {
      // Chatwoot's automation message: outgoing, no sender, marked with the rule so it is not a human reply.
      const { conversation } = await createMessage(tx, cause, conv, {
        message_type: 1,
        content: command.content,
        content_type: 'text',
        content_attributes: { automation_rule_id: cause.ctx.actor.id },
        private: command.private,
        source_id: null,
        sender_type: null,
        sender_id: null,
      });
      return conversation;
    }
  }
  // A command's one change: its transaction ends with it.
  return changeConversation(tx, cause, conv, patch, { last: true });
}
