import { peersAndProjections, type Peers, type ServiceDeps } from '@parley/shared';
import type { ConversationsConfig } from './config';
import { Projections } from './projections/store';
import { SearchHits } from './conversations/search-hits';

/** What every route and consumer of this service gets: the kernel's deps plus peers and projections. */
export interface AppDeps extends ServiceDeps<ConversationsConfig> {
  peers: Peers;
  projections: Projections;
  searchHits: SearchHits;
}

export function appDeps(deps: ServiceDeps<ConversationsConfig>): AppDeps {
  const { peers, projections } = peersAndProjections(deps);
  const searchHits = new SearchHits(deps.pool, deps.log, { minConversations: deps.config.SEARCH_HITS_MIN_CONVERSATIONS, maxPatterns: deps.config.SEARCH_PATTERNS_MAX });
  return { ...deps, peers, projections: new Projections(deps.pool, projections), searchHits };
}
