import { peersAndProjections, type ServiceDeps } from '@parley/shared';
import type { ContactsConfig } from './config';
import { InboxDirectory } from './inboxes/directory';

/** Everything the routes and use cases need, built once per app. */
export interface AppDeps extends ServiceDeps<ContactsConfig> {
  inboxes: InboxDirectory;
}

export function appDeps(deps: ServiceDeps<ContactsConfig>): AppDeps {
  const { peers, projections } = peersAndProjections(deps);
  return { ...deps, inboxes: new InboxDirectory({ pool: deps.pool, log: deps.log, redis: deps.redis, config: deps.config, peers, projections }) };
}
