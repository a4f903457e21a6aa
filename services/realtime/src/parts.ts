import { peersAndProjections, type ServiceDeps } from '@parley/shared';
import { Grants } from './auth/grants';
import type { RealtimeConfig } from './config';
import { RealtimeMetrics } from './metrics';
import { Presence } from './presence';
import { StreamHub } from './streams/hub';
import { StreamLog } from './streams/log';

/** What the fan-out consumer and the `/cable` endpoint share in one process. */
export interface RealtimeParts {
  streamLog: StreamLog;
  hub: StreamHub;
  grants: Grants;
  presence: Presence;
  metrics: RealtimeMetrics;
  projections: ReturnType<typeof peersAndProjections>['projections'];
  peers: ReturnType<typeof peersAndProjections>['peers'];
}

const built = new WeakMap<ServiceDeps<RealtimeConfig>, RealtimeParts>();

/** The parts of one running service (built once per deps: the consumer and the server ask for them separately). */
export function partsOf(deps: ServiceDeps<RealtimeConfig>): RealtimeParts {
  let parts = built.get(deps);
  if (!parts) {
    const { config, redis, log, pool } = deps;
    const { peers, projections } = peersAndProjections(deps);
    parts = {
      streamLog: new StreamLog({ redis, namespace: config.NAMESPACE, maxEvents: config.REALTIME_STREAM_MAX_EVENTS, retentionMs: config.REALTIME_RETENTION_MS }),
      hub: new StreamHub(redis, log, config.REALTIME_FLUSH_MS),
      grants: new Grants({ peers, redis, namespace: config.NAMESPACE, ttlSeconds: config.REALTIME_TOKEN_CACHE_SECONDS, log }),
      presence: new Presence({ redis, namespace: config.NAMESPACE, seconds: config.REALTIME_PRESENCE_SECONDS, db: pool, projections }),
      metrics: new RealtimeMetrics(deps.metrics),
      projections,
      peers,
    };
    built.set(deps, parts);
  }
  return parts;
}
