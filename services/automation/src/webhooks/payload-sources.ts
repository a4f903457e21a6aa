import type { Executor, Logger } from '@parley/shared';
import type { AutomationConfig } from '../config';
import { AccountNames } from '../projections/accounts';
import { contactFor } from '../projections/contacts';
import { inboxFor } from '../projections/inboxes';
import type { PayloadContext } from './payloads';

/**
 * What a Chatwoot-shaped payload needs beyond the event: the account's name, the inbox and
 * the contact. Each comes from a projection or a cached read-through; a lookup that fails
 * leaves that part minimal rather than holding up delivery.
 */
export class PayloadSources {
  readonly accounts: AccountNames;

  constructor(
    private readonly config: AutomationConfig,
    private readonly log: Logger,
  ) {
    this.accounts = new AccountNames(config, log);
  }

  async context(db: Executor, accountId: number, inboxId: number | null, contactId: number | null, requestId: string): Promise<PayloadContext> {
    const [accountName, inbox, contact] = await Promise.all([
      this.accounts.nameOf(accountId),
      inboxId === null ? null : inboxFor(db, this.config, this.log, accountId, inboxId, requestId),
      contactId === null ? null : contactFor(db, this.config, this.log, accountId, contactId, requestId),
    ]);
    return { accountName, inbox, contact };
  }
}
