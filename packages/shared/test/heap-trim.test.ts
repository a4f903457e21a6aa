import { execFile } from 'node:child_process';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { join } from 'node:path';
import { IdleHeapTrimmer } from '../src/heap-trim';

const MB = 1024 * 1024;

/**
 * A trimmer whose loop utilisation, young generation and clock the test sets. Its collector acts
 * as V8 does: it shrinks the young generation at a GC only when the previous GC was at least 5 s
 * before (the allocation rate it measures since then is low); the load's last GC was at 0.
 */
function fake(start: { utilization: number; newSpace: number }) {
  const state = { ...start, gcs: [] as Array<string | undefined>, shrinks: true, t: 0, lastGcAt: 0 };
  const trimmer = new IdleHeapTrimmer({
    intervalMs: 1000,
    gc: (o) => {
      state.gcs.push(o?.type);
      if (state.shrinks && state.t - state.lastGcAt >= 5000) state.newSpace = 1 * MB;
      state.lastGcAt = state.t;
    },
    newSpace: () => state.newSpace,
    utilization: () => ({ now: performance.eventLoopUtilization() as EventLoopUtilization, utilization: state.utilization }),
    clock: () => state.t,
  });
  /** One look `ms` after the one before. */
  const look = (ms = 1000) => {
    state.t += ms;
    return trimmer.check();
  };
  return { trimmer, state, look };
}

describe('IdleHeapTrimmer', () => {
  it('scavenges at the first idle look, and again once the loop has stayed idle for V8\'s rate window, when V8 gives the young generation back', () => {
    const { trimmer, state, look } = fake({ utilization: 0.001, newSpace: 64 * MB });
    expect(look()).toBe('scavenged');
    // A GC before the window is up would still count the load's garbage: V8 would keep it.
    for (let i = 0; i < 5; i++) expect(look()).toBeNull();
    expect(look()).toBe('trimmed');
    expect(state.newSpace).toBe(1 * MB);
    // Scavenges only (a full GC of a large heap would pause the process).
    expect(state.gcs).toEqual(['minor', 'minor']);
    expect(trimmer.trims).toBe(1);
    // Trimmed (1 MB, under the floor): idle looks after it collect nothing more.
    for (let i = 0; i < 10; i++) expect(look()).toBeNull();
    expect(state.gcs).toHaveLength(2);
  });

  it('starts the quiet spell afresh when the loop is busy between the two scavenges', () => {
    const { state, look } = fake({ utilization: 0, newSpace: 64 * MB });
    expect(look()).toBe('scavenged');
    look(3000);
    state.utilization = 0.3;
    expect(look()).toBeNull();
    state.lastGcAt = state.t; // the load's own GCs
    state.utilization = 0;
    expect(look()).toBe('scavenged');
    expect(look(3000)).toBeNull();
    expect(look(3000)).toBe('trimmed');
    expect(state.gcs).toHaveLength(3);
  });

  it('counts a first scavenge that V8 already shrank at as the trim', () => {
    const { state, look } = fake({ utilization: 0, newSpace: 64 * MB });
    state.lastGcAt = -60_000; // quiet for a minute before the young generation is looked at
    expect(look()).toBe('trimmed');
    // Grown again while quiet: not before a minute has passed, and then from a first scavenge.
    state.newSpace = 32 * MB;
    for (let i = 0; i < 59; i++) expect(look()).toBeNull();
    expect(look()).toBe('trimmed');
    expect(state.gcs).toHaveLength(2);
  });

  it('trims a process that stays quiet but grows its young generation again at most once a minute, unless it was busy in between', () => {
    const { state, look } = fake({ utilization: 0, newSpace: 64 * MB });
    expect(look()).toBe('scavenged');
    expect(look(6000)).toBe('trimmed');
    state.newSpace = 32 * MB;
    const looks = Array.from({ length: 59 }, () => look());
    expect(looks.every((r) => r === null)).toBe(true);
    expect(look()).toBe('trimmed');
    // Load, then quiet again: scavenged at the first idle look.
    state.newSpace = 64 * MB;
    state.utilization = 0.3;
    expect(look()).toBeNull();
    state.lastGcAt = state.t;
    state.utilization = 0;
    expect(look()).toBe('scavenged');
  });

  it('never collects while the loop is busy, however large the young generation', () => {
    const { state, look } = fake({ utilization: 0.4, newSpace: 64 * MB });
    for (let i = 0; i < 10; i++) expect(look()).toBeNull();
    expect(state.gcs).toEqual([]);
  });

  it('leaves a young generation at or under the floor alone', () => {
    const { state, look } = fake({ utilization: 0, newSpace: 4 * MB });
    for (let i = 0; i < 10; i++) expect(look()).toBeNull();
    expect(state.gcs).toEqual([]);
  });

  it('backs off while V8 will not shrink (5 s, 10 s, 20 s... up to 160 s), and starts afresh after load', () => {
    const { state, look } = fake({ utilization: 0, newSpace: 64 * MB });
    state.shrinks = false;
    expect(look()).toBe('scavenged');
    expect(look(6000)).toBe('declined');
    let wait = 5000;
    for (let round = 0; round < 7; round++) {
      expect(look(wait - 1000)).toBeNull();
      expect(look(1000)).toBe('scavenged');
      expect(look(6000)).toBe('declined');
      wait = Math.min(wait * 2, 160_000);
    }
    // At the cap: 160 s again.
    expect(look(159_000)).toBeNull();
    expect(look(1000)).toBe('scavenged');
    state.utilization = 0.5;
    expect(look()).toBeNull();
    state.utilization = 0;
    expect(look()).toBe('scavenged');
  });

  it("gives a real process's young generation back once it has been idle (a child node at 32 MB a semi-space)", async () => {
    // The child allocates for 1.5 s (V8 grows the young generation towards 2 x 32 MB), then idles
    // with a trimmer looking every 500 ms, and prints its young generation's size when it is
    // back at V8's minimum or after 40 s (V8 would give it back on its own after about two minutes).
    const script = `
      const { IdleHeapTrimmer, newSpaceBytes } = require(${JSON.stringify(join(__dirname, '../dist/heap-trim.js'))});
      let keep = [];
      const grow = setInterval(() => { for (let i = 0; i < 3000; i++) { keep.push({ s: 'x'.repeat(40) + i, a: [i] }); if (keep.length > 30000) keep = []; } }, 1);
      setTimeout(() => {
        clearInterval(grow); keep = [];
        const grown = newSpaceBytes();
        const t = new IdleHeapTrimmer({ intervalMs: 500 }); t.start();
        const started = Date.now();
        const look = setInterval(() => {
          if (newSpaceBytes() <= 2 * 1024 * 1024 || Date.now() - started > 40000) {
            console.log(JSON.stringify({ grown, after: newSpaceBytes(), trims: t.trims }));
            process.exit(0);
          }
        }, 100);
      }, 1500);`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--max-semi-space-size=32', '-e', script], { timeout: 90_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
    );
    const r = JSON.parse(out.trim()) as { grown: number; after: number; trims: number };
    expect(r.grown).toBeGreaterThan(16 * MB);
    expect(r.after).toBeLessThanOrEqual(2 * MB);
    expect(r.trims).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
