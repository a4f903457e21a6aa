import { Counter, Gauge } from 'prom-client';
import type { ServiceMetrics } from '@parley/shared';

/** The channel's own metrics, in the service's registry (served on METRICS_PORT). */
export class RealtimeMetrics {
  /** Open `/cable` sockets on this replica. */
  readonly connections: Gauge;
  /** Subscribe outcomes: `confirmed`, `rejected`, `unavailable` (an owner could not answer). */
  readonly subscriptions: Counter<'outcome'>;
  /** Data frames sent to subscribers (replayed and live). */
  readonly delivered: Counter;
  /** Log entries the fan-out appended. */
  readonly appended: Counter;

  constructor(metrics: ServiceMetrics) {
    const registers = [metrics.registry];
    this.connections = new Gauge({ name: 'parley_realtime_connections', help: 'Open /cable WebSocket connections', registers });
    this.subscriptions = new Counter({ name: 'parley_realtime_subscriptions_total', help: 'RoomChannel subscribe commands by outcome', labelNames: ['outcome'], registers });
    this.delivered = new Counter({ name: 'parley_realtime_delivered_total', help: 'Data frames sent to subscribers', registers });
    this.appended = new Counter({ name: 'parley_realtime_log_entries_total', help: 'Entries appended to the stream log', registers });
  }
}
