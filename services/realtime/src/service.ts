import path from 'node:path';
import type { PoolClient } from 'pg';
import type { EventEnvelope, ServiceDefinition } from '@parley/shared';
import type { RealtimeConfig } from './config';
import { createApp } from './app';
import { CableServer } from './cable/server';
import { fanoutConsumer } from './fanout/consumer';
import { partsOf } from './parts';

/**
 * The ActionCable-compatible `/cable` channel (docs/architecture.md "Realtime"): the consumer of
 * `realtime.fanout` appends events to per-stream logs in Redis Streams; each replica serves its
 * own sockets from those logs, so any replica serves any client and a client resumes anywhere.
 */
export const realtimeService: ServiceDefinition<RealtimeConfig> = {
  name: 'realtime',
  migrationsDir: path.resolve(__dirname, '..', 'migrations'),
  createApp,
  consumers: (deps) => {
    const p = partsOf(deps);
    const fanout = fanoutConsumer({
      streamLog: p.streamLog, projections: p.projections, peers: p.peers, grants: p.grants, metrics: p.metrics, log: deps.log, lookupBackoffMs: deps.config.PEER_LOOKUP_BACKOFF_MS,
    });
    if (!fanout.spec.handle) throw new Error('fanout consumer without a handler');
    // Batch mode: events are appended in arrival order (one message at a time would run up to
    // `prefetch` of them at once, and two messages of one conversation could swap places), a
    // batch's appends in one Redis round trip.
    const batch = { size: deps.config.REALTIME_FANOUT_BATCH_SIZE, maxWaitMs: deps.config.REALTIME_FANOUT_BATCH_WAIT_MS, handle: (tx: PoolClient, events: EventEnvelope[]) => fanout.handleBatch(tx, events) };
    return [{ name: fanout.spec.name, bindings: fanout.spec.bindings, batch }];
  },
  attach: (server, deps) => {
    const p = partsOf(deps);
    const cable = new CableServer({ config: deps.config, log: deps.log, grants: p.grants, hub: p.hub, streamLog: p.streamLog, presence: p.presence, metrics: p.metrics });
    p.hub.start();
    cable.attach(server);
    return {
      close: async () => {
        await cable.close();
        await p.hub.stop();
      },
    };
  },
};
