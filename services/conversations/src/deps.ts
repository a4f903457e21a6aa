import { peersAndProjections, type Peers, type ServiceDeps } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { Projections } from './projections/store';

/** What every route and consumer of this service gets: the kernel's deps plus peers and projections. */
export interface AppDeps extends ServiceDeps<ConversationsConfig> {
  peers: Peers;
  projections: Projections;
}

export function appDeps(deps: ServiceDeps<ConversationsConfig>): AppDeps {
  const { peers, projections } = peersAndProjections(deps);
  return { ...deps, peers, projections: new Projections(deps.pool, projections) };
}
