import { execFile } from 'node:child_process';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { join } from 'node:path';
import { IdleHeapTrimmer } from '../src/heap-trim';

const MB = 1024 * 1024;

/** A trimmer whose loop utilisation and young generation the test sets, counting its collections. */
function fake(start: { utilization: number; newSpace: number }) {
  const state = { ...start, gcs: 0, shrinks: true };
  const trimmer = new IdleHeapTrimmer({
    intervalMs: 1000,
    gc: () => {
      state.gcs++;
      if (state.shrinks) state.newSpace = 1 * MB;
    },
    newSpace: () => state.newSpace,
    utilization: () => ({ now: performance.eventLoopUtilization() as EventLoopUtilization, utilization: state.utilization }),
  });
  return { trimmer, state };
}

describe('IdleHeapTrimmer', () => {
  it('collects once when the loop was idle over the interval and the young generation is above the floor', () => {
    const { trimmer, state } = fake({ utilization: 0.001, newSpace: 64 * MB });
    expect(trimmer.check()).toBe(true);
    expect(state.gcs).toBe(1);
    // Trimmed (1 MB, under the floor): idle looks after it collect nothing more.
    expect(trimmer.check()).toBe(false);
    expect(trimmer.check()).toBe(false);
    expect(state.gcs).toBe(1);
  });

  it('trims a process that stays quiet but grows its young generation again at most every 12 intervals, unless it was busy in between', () => {
    const { trimmer, state } = fake({ utilization: 0, newSpace: 64 * MB });
    expect(trimmer.check()).toBe(true);
    state.newSpace = 32 * MB;
    const looks = Array.from({ length: 13 }, () => trimmer.check());
    expect(looks.slice(0, 12).every((t) => !t)).toBe(true);
    expect(looks[12]).toBe(true);
    // Load, then quiet again: trimmed at the first idle look.
    state.newSpace = 64 * MB;
    state.utilization = 0.3;
    expect(trimmer.check()).toBe(false);
    state.utilization = 0;
    expect(trimmer.check()).toBe(true);
    expect(state.gcs).toBe(3);
  });

  it('never collects while the loop is busy, however large the young generation', () => {
    const { trimmer, state } = fake({ utilization: 0.4, newSpace: 64 * MB });
    for (let i = 0; i < 5; i++) expect(trimmer.check()).toBe(false);
    expect(state.gcs).toBe(0);
  });

  it('leaves a young generation at or under the floor alone', () => {
    const { trimmer, state } = fake({ utilization: 0, newSpace: 4 * MB });
    expect(trimmer.check()).toBe(false);
    expect(state.gcs).toBe(0);
  });

  it('backs off while V8 will not shrink, and starts afresh after load', () => {
    const { trimmer, state } = fake({ utilization: 0, newSpace: 64 * MB });
    state.shrinks = false;
    const tried = () => Array.from({ length: 8 }, () => trimmer.check());
    // Tries, skips 1, tries, skips 2, tries, skips 3 of 4...
    expect(tried()).toEqual([true, false, true, false, false, true, false, false]);
    state.utilization = 0.5;
    expect(trimmer.check()).toBe(false);
    state.utilization = 0;
    expect(trimmer.check()).toBe(true);
  });

  it("gives a real process's young generation back once it has been idle (a child node at 32 MB a semi-space)", async () => {
    // The child allocates for 1.5 s (V8 grows the young generation towards 2 x 32 MB), then idles
    // with a trimmer looking every 500 ms, and prints its young generation's size when it is
    // back at V8's minimum or after 40 s.
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
