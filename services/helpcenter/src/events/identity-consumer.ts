import { defineConsumer } from '@parley/shared';
import { authorCopies } from '../authors/copies';
import { deletePortalsOfAccount } from '../portals/repository';

/**
 * Keeps the author copies (the projection kit's agents) fresh and cascades account deletion.
 * `agent.removed` is deliberately not handled: articles keep showing who wrote them after the
 * author leaves.
 */
export const identityConsumer = defineConsumer('identity', (on) => {
  on(['agent.added', 'agent.updated'], async (tx, _agent, event) => {
    await authorCopies.apply(tx, 'agent', event);
  });
  on('user.updated', async (tx, user, event) => {
    await authorCopies.patchUser(tx, user, event.occurred_at);
  });
  on('account.deleted', async (tx, account, event) => {
    const accountId = event.account_id ?? account.id;
    await deletePortalsOfAccount(tx, accountId);
    await authorCopies.removeAccount(tx, accountId);
  });
});
