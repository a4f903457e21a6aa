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
  /** How often to look (ms); a look finds the loop idle when it was idle over the whole time since the last. */
  intervalMs: number;
  /** Trim only while the young generation holds more than this (bytes): once trimmed it is 1 MB. */
  floorBytes?: number;
  /** An interval counts as idle below this event-loop utilisation (0-1). */
  idleUtilization?: number;
  /** For tests: the readers, the clock and the collector. */
  gc?: GcFunction;
  newSpace?: () => number;
  utilization?: (since: EventLoopUtilization) => { now: EventLoopUtilization; utilization: number };
  clock?: () => number;
}

const elu = (since: EventLoopUtilization) => {
  const now = performance.eventLoopUtilization();
  return { now, utilization: performance.eventLoopUtilization(now, since).utilization };
};

/**
 * V8 shrinks the young generation at a GC only when the allocation rate it measures since the
 * previous GC (or over its last 5 s, when that GC was more recent) is below 1 MB/s. The last GC of
 * a burst of load is a scavenge in the middle of it: a GC a few seconds into the quiet spell still
 * counts the load's garbage over those seconds, and V8 keeps the young generation (measured: a GC
 * 9 s after a list load declined, the one 10 s later shrank it). So the trimmer first runs a
 * scavenge (it collects that garbage, and the rate is measured afresh from it), then a second one
 * once this much longer has passed in quiet.
 */
const V8_RATE_WINDOW_MS = 5_000 + 250;
/** After a trim that worked, a process that stays quiet but grows the young generation again is trimmed again at most this often. */
const RETRIM_GAP_MS = 60_000;
/** When V8 will not shrink all the same (the process still allocates a little), the next try waits this long, doubled each time up to 32 times (160 s). */
const BACKOFF_MS = 5_000;

/**
 * Gives V8's young generation back once a busy process goes quiet. V8 grows the young
 * generation under load up to `--max-semi-space-size` (two semi-spaces: 64 MB at 32) and shrinks
 * it only at a GC that finds the allocation rate low (V8_RATE_WINDOW_MS), which an idle process
 * runs only when V8's memory reducer gets to it: after a burst of load it kept all of it,
 * resident, for about two minutes (measured: a service at 32 MB a semi-space 161 MB resident for
 * 110 s after its load ended, then 83 MB). Each `intervalMs` this looks at the event loop's
 * utilisation since its last look. At the first idle look with the young generation above the
 * floor, a scavenge; when the loop has stayed idle for V8's rate window after it, a second one,
 * at which V8 shrinks the young generation to its minimum (1 MB) and releases the rest (the same
 * service: 63 MB less, about 7 s after its load ended at 1 s looks). Scavenges only: they cost a
 * few milliseconds whatever the old generation holds (on Node 20, `gc({ type: 'major' })` runs a
 * scavenge too; a full GC of a large heap would pause a process that may still be serving). Under
 * load it never runs (the loop is not idle), so the larger young generation that makes requests
 * cheaper (fewer scavenges of in-flight answers) costs memory only while busy.
 */
export class IdleHeapTrimmer {
  private timer: NodeJS.Timeout | null = null;
  private last: EventLoopUtilization;
  /** Found at the first trim (a process that never goes quiet after load never makes the context `exposedGc` needs). */
  private gc: GcFunction | null;
  private readonly newSpace: () => number;
  private readonly utilization: (since: EventLoopUtilization) => { now: EventLoopUtilization; utilization: number };
  private readonly clock: () => number;
  /** Young generations given back (metrics and tests). */
  trims = 0;
  /** When this quiet spell's first scavenge ran (null: not yet, or the loop was busy since). */
  private primedAt: number | null = null;
  /** No scavenge before this time (a backoff, or the gap after a trim); reset when the loop is busy. */
  private notBefore = 0;
  private backoff = 0;

  constructor(private readonly opts: IdleHeapTrimmerOptions) {
    this.gc = opts.gc ?? null;
    this.newSpace = opts.newSpace ?? newSpaceBytes;
    this.utilization = opts.utilization ?? elu;
    this.clock = opts.clock ?? (() => performance.now());
    this.last = performance.eventLoopUtilization();
  }

  start(): void {
    if (this.timer) return;
    this.last = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.check(), this.opts.intervalMs);
    this.timer.unref();
  }

  /**
   * One look: answers what it did: 'scavenged' (the first idle look of a quiet spell), 'trimmed'
   * (the young generation given back, at the second scavenge or already at the first),
   * 'declined' (V8 kept it at the second: the next try backs off), or null (busy, small, waiting).
   */
  check(): 'scavenged' | 'trimmed' | 'declined' | null {
    const { now, utilization } = this.utilization(this.last);
    this.last = now;
    if (utilization >= (this.opts.idleUtilization ?? 0.02)) {
      // Busy again: the next quiet spell starts afresh.
      this.primedAt = null;
      this.notBefore = this.backoff = 0;
      return null;
    }
    const floor = this.opts.floorBytes ?? 4 * 1024 * 1024;
    if (this.newSpace() <= floor) {
      // Small (V8 shrank it on its own, say): a later growth starts with a scavenge of its own.
      this.primedAt = null;
      return null;
    }
    const t = this.clock();
    if (t < this.notBefore) return null;
    if (this.primedAt !== null && t - this.primedAt < V8_RATE_WINDOW_MS) return null;
    const first = this.primedAt === null;
    this.scavenge();
    if (this.newSpace() <= floor) {
      // Given back. A process that stays quiet but allocates enough to grow it again (a realtime
      // replica holding thousands of idle sockets) is trimmed again at most once a minute until it
      // has been busy in between.
      this.trims++;
      this.primedAt = null;
      this.backoff = 0;
      this.notBefore = t + RETRIM_GAP_MS;
      return 'trimmed';
    }
    if (first) {
      this.primedAt = t;
      return 'scavenged';
    }
    // V8 measured a rate that is not low (the process still allocates): later, less often.
    this.primedAt = null;
    this.backoff = Math.min(Math.max(this.backoff * 2, 1), 32);
    this.notBefore = t + this.backoff * BACKOFF_MS;
    return 'declined';
  }

  /** A scavenge; the loop's utilisation is read again after it, so that its own pause does not count as load at the next look. */
  private scavenge(): void {
    (this.gc ??= exposedGc())({ type: 'minor' });
    this.last = performance.eventLoopUtilization();
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
