import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc()` (exposed with --expose-gc), with the options Node 20 accepts. */
type GcFunction = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => void;

/**
 * V8's `gc` function without `--expose-gc` on the command line: the flag set at run time exposes
 * it in a context made after it (the main context was made before). Node documents
 * `v8.setFlagsFromString` for such flags; this one adds a global to new contexts and changes
 * nothing else.
 */
export function exposedGc(): GcFunction {
  const existing = (globalThis as { gc?: GcFunction }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as GcFunction;
}

/** The young generation's committed size (both semi-spaces), bytes. */
export function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

export interface IdleHeapTrimmerOptions {
  /** How often to look (ms); the loop must have been idle over a whole interval. */
  intervalMs: number;
  /** Trim only while the young generation holds more than this (bytes): once trimmed it is 1 MB. */
  floorBytes?: number;
  /** An interval counts as idle below this event-loop utilisation (0-1). */
  idleUtilization?: number;
  /** For tests: the readers and the collector. */
  gc?: GcFunction;
  newSpace?: () => number;
  utilization?: (since: EventLoopUtilization) => { now: EventLoopUtilization; utilization: number };
}

const elu = (since: EventLoopUtilization) => {
  const now = performance.eventLoopUtilization();
  return { now, utilization: performance.eventLoopUtilization(now, since).utilization };
};

/**
 * Gives V8's young generation back once a busy process goes quiet. V8 grows the young
 * generation under load up to `--max-semi-space-size` (two semi-spaces: 64 MB at 32) and shrinks
 * it only at a GC that finds the allocation rate low, which an idle process runs only when V8's
 * memory reducer gets to it: after a burst of load it kept all of it, resident, for about two
 * minutes (measured: a service at 32 MB a semi-space 161 MB resident for 110 s after its load
 * ended, then 83 MB). Each `intervalMs` this
 * looks at the event loop's utilisation over the interval; when it was idle throughout (so the
 * allocation rate V8 measures over its last 5 s is low) and the young generation is larger than
 * the floor, one full GC runs: V8 shrinks the young generation to its minimum (1 MB) and
 * releases the rest (the same service: 49 MB less). A few milliseconds once per busy-to-idle
 * turn; under load it never runs (the loop is not idle), so the larger young generation that
 * makes requests cheaper (fewer scavenges of in-flight answers) costs memory only while busy.
 */
export class IdleHeapTrimmer {
  private timer: NodeJS.Timeout | null = null;
  private last: EventLoopUtilization;
  /** Found at the first trim (a process that never goes quiet after load never makes the context `exposedGc` needs). */
  private gc: GcFunction | null;
  private readonly newSpace: () => number;
  private readonly utilization: (since: EventLoopUtilization) => { now: EventLoopUtilization; utilization: number };
  /** Full GCs this trimmer ran (metrics and tests). */
  trims = 0;
  /** Idle looks to let pass before the next try: a GC that found V8 unwilling to shrink (an allocation rate not yet low) waits twice as long each time. */
  private skip = 0;
  private backoff = 0;

  constructor(private readonly opts: IdleHeapTrimmerOptions) {
    this.gc = opts.gc ?? null;
    this.newSpace = opts.newSpace ?? newSpaceBytes;
    this.utilization = opts.utilization ?? elu;
    this.last = performance.eventLoopUtilization();
  }

  start(): void {
    if (this.timer) return;
    this.last = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.check(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** One look: trims if the last interval was idle and the young generation is above the floor. Answers whether it trimmed. */
  check(): boolean {
    const { now, utilization } = this.utilization(this.last);
    this.last = now;
    if (utilization >= (this.opts.idleUtilization ?? 0.02)) {
      // Busy again: the next quiet spell starts afresh.
      this.skip = this.backoff = 0;
      return false;
    }
    const floor = this.opts.floorBytes ?? 4 * 1024 * 1024;
    if (this.newSpace() <= floor) return false;
    if (this.skip > 0) {
      this.skip--;
      return false;
    }
    (this.gc ??= exposedGc())({ type: 'major' });
    this.trims++;
    // V8 shrinks the young generation only when the allocation rate it measured over its last
    // 5 s is low; a process that still allocates a little keeps it, and is not collected every
    // interval for nothing: 1, 2, 4... up to 32 intervals pass before the next try.
    if (this.newSpace() > floor) this.skip = this.backoff = Math.min(Math.max(this.backoff * 2, 1), 32);
    else {
      // Trimmed. A process that stays quiet but allocates enough to grow it again (a realtime
      // replica holding thousands of idle sockets, whose full GC is a larger heap's) is trimmed
      // again at most every 12 intervals (a minute at 5 s) until it has been busy in between.
      this.backoff = 0;
      this.skip = 12;
    }
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

let shared: { trimmer: IdleHeapTrimmer; users: number } | null = null;

/**
 * The process's one trimmer (a process that runs several services, as the tests do, gets one),
 * started at the first call; the function answered lets it go, and the last one stops it.
 */
export function retainHeapTrimmer(intervalMs: number): () => void {
  if (!shared) {
    shared = { trimmer: new IdleHeapTrimmer({ intervalMs }), users: 0 };
    shared.trimmer.start();
  }
  shared.users++;
  let released = false;
  return () => {
    if (released || !shared) return;
    released = true;
    if (--shared.users === 0) {
      shared.trimmer.stop();
      shared = null;
    }
  };
}
