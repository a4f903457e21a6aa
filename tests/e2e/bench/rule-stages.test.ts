// eslint-disable-next-line @typescript-eslint/no-require-imports
const { stagesOf } = require('../../../scripts/bench/run') as {
  stagesOf: (
    rows: Array<{ display_id: number; t0: string; t1: string | null; t2: string | null; t3: string | null }>,
    answered: Map<number, number>,
    seen: Map<number, number>,
    origin: number,
  ) => Record<string, { p50: number; p99: number } | number | null>;
};

/** The rule effect's stages (scripts/bench/run.js): each message's rows and the benchmark's own times, keyed by display id. */
describe('benchmark rule effect stages', () => {
  // Epoch ms as Postgres's extract(epoch ...) * 1000 gives them (numeric: strings).
  const T0 = 1_800_000_000_000;
  const row = (id: number, start: number, t1: number | null, t2: number | null, t3: number | null) => ({
    display_id: id,
    t0: String(T0 + start),
    t1: t1 === null ? null : String(T0 + start + t1),
    t2: t2 === null ? null : String(T0 + start + t2),
    t3: t3 === null ? null : String(T0 + start + t3),
  });

  it('puts each stage after its own message transaction start, the benchmark times on the wall clock by the origin', () => {
    // The benchmark's clock started 1,000 ms before T0: its times are origin-relative.
    const origin = T0 - 1000;
    const rows = [row(7, 0, 30, 60, 90), row(8, 500, 40, 80, 120), row(10, 1000, 20, 40, 60)];
    const answered = new Map([
      [7, 1000 + 10],
      [8, 1500 + 20],
      [10, 2000 + 5],
    ]);
    const seen = new Map([
      [7, 1000 + 100],
      [8, 1500 + 150],
      [10, 2000 + 70],
    ]);
    const st = stagesOf(rows, answered, seen, origin);
    expect(st['messages']).toBe(3);
    expect(st['answered']).toMatchObject({ p50: 10, p99: 20 });
    expect(st['published']).toMatchObject({ p50: 30, p99: 40 });
    expect(st['rules']).toMatchObject({ p50: 60, p99: 80 });
    expect(st['command']).toMatchObject({ p50: 90, p99: 120 });
    expect(st['seen']).toMatchObject({ p50: 100, p99: 150 });
  });

  it('leaves out what a message lacks: no run or label change yet, a label never seen, a message of no answer', () => {
    const st = stagesOf([row(7, 0, 30, null, null), row(9, 0, null, null, null)], new Map([[7, 1010]]), new Map(), T0 - 1000);
    expect(st['messages']).toBe(2);
    expect(st['answered']).toMatchObject({ p50: 10 });
    expect(st['published']).toMatchObject({ p50: 30, p99: 30 });
    expect(st['rules']).toBeNull();
    expect(st['command']).toBeNull();
    expect(st['seen']).toBeNull();
  });
});
