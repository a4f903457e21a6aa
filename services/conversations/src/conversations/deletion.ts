import type { Executor } from '@parley/shared';
import type { ConversationRow } from '../common/rows';
import { conversationSnapshot } from '../common/snapshots';
import { emit, type Cause } from './changes';

const BATCH = 500;

/**
 * Deletes every conversation of a contact or an inbox (their messages and files go by FK
 * cascade) and announces each with conversation.deleted, in the caller's transaction. Peers keep
 * per-conversation state (automation's last messages, the audit log), so no conversation goes
 * silently. Batched, so a large inbox does not hold every row in memory at once.
 */
export async function deleteConversationsOf(tx: Executor, cause: Cause, accountId: number, owner: { contactId: number } | { inboxId: number }): Promise<number> {
  const [column, value] = 'contactId' in owner ? ['contact_id', owner.contactId] : ['inbox_id', owner.inboxId];
  let total = 0;
  for (;;) {
    const { rows } = await tx.query<ConversationRow>(
      `DELETE FROM conversations WHERE id IN (
         SELECT id FROM conversations WHERE account_id = $1 AND ${column} = $2 ORDER BY id LIMIT ${BATCH} FOR UPDATE)
       RETURNING *`,
      [accountId, value],
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    for (const c of rows) await emit(tx, cause, 'conversation.deleted', accountId, conversationSnapshot(c));
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}
