// eslint-disable-next-line @typescript-eslint/no-require-imports
const summary = require('../../../scripts/bench/profile-summary') as {
  timeline: (profile: unknown) => Array<[number, number]>;
  summarize: (profile: unknown, o: Record<string, unknown>) => { total: number; idle: number; self: Map<string, number> };
};

/**
 * A V8 .cpuprofile of three seconds sampled every 100 ms: a start-up second busy throughout in
 * `compile`, an idle second, a second half busy in `work` (each sample lasts until the next).
 */
function profile() {
  const frame = (id: number, functionName: string, children: number[] = []) => ({ id, callFrame: { functionName, url: '', lineNumber: 0 }, children });
  const nodes = [frame(1, '(root)', [2, 3, 4]), frame(2, '(idle)'), frame(3, 'compile'), frame(4, 'work')];
  const samples = [...Array(10).fill(3), ...Array(10).fill(2), ...Array(5).fill(4), ...Array(5).fill(2)];
  // Sample i is taken at i * 100 ms; its duration is the next delta (the last one's, none: 0).
  const timeDeltas = samples.map((_, i) => (i === 0 ? 0 : 100_000));
  return { nodes, samples, timeDeltas, startTime: 0, endTime: 3_000_000 };
}

describe('profile summary (scripts/bench/profile-summary.js)', () => {
  it('gives the busy ms of each second, to pick the measured window', () => {
    expect(summary.timeline(profile())).toEqual([
      [0, 1000],
      [1, 0],
      [2, 500],
    ]);
  });

  it('summarizes the window --skip and --busiest pick: the busiest second after the start-up skipped', () => {
    const all = summary.summarize(profile(), { skip: 0, busiest: 0, by: 'function', tree: null });
    expect(all.self.get('compile ')).toBe(1_000_000);
    const after = summary.summarize(profile(), { skip: 1, busiest: 1, by: 'function', tree: null });
    expect([...after.self.keys()]).toEqual(['work ']);
    expect(after.total).toBe(500_000);
  });

  it('takes exactly the seconds --skip and --window give, busy or not', () => {
    const idleSecond = summary.summarize(profile(), { skip: 1, window: 1, by: 'function', tree: null });
    expect(idleSecond.total).toBe(0);
    expect(idleSecond.idle).toBe(1_000_000);
    const firstTwo = summary.summarize(profile(), { skip: 0, window: 2, by: 'function', tree: null });
    expect([...firstTwo.self.keys()]).toEqual(['compile ']);
    expect(firstTwo.total).toBe(1_000_000);
  });
});
