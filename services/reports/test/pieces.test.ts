import { bucketsOf, piecesOf, readPlanOf, type GrainRead, type Piece } from '../src/reports/pieces';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ACCOUNT = ['month', 'day', 'hour'] as const;

/** The piece a time belongs to by a read's thresholds, as SQL's width_bucket and the keys give it (-1: a gap; null: before the first). */
function keyOf(read: GrainRead, t: number): number | null {
  let i = 0;
  while (i < read.thresholds.length && (read.thresholds[i] as number) <= t) i += 1;
  return i === 0 ? null : (read.keys[i - 1] as number);
}

/** How many times, with sign, a time is counted for bucket k by the pieces. */
const countedFor = (pieces: Piece[], k: number, t: number) => pieces.filter((p) => p.k === k && p.a <= t && t < p.b).reduce((n, p) => n + p.sign, 0);

describe('reports pieces: how a timeseries is read', () => {
  const until = Date.UTC(2026, 10, 25);
  const since = until - 365 * DAY;

  it('when a year is grouped by UTC day, then its 365 pieces are read as one range of days', () => {
    const pieces = piecesOf(bucketsOf(since, until, 'day', 0), [...ACCOUNT]);
    expect(pieces).toHaveLength(365);
    const { reads, subtracted } = readPlanOf(pieces);
    expect(subtracted).toEqual([]);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({ grain: 'day', ranges: [{ a: since, b: until }] });
    expect(keyOf(reads[0]!, since + 100 * DAY + 5)).toBe(100);
  });

  it('when buckets are local to fractional offsets, then every time of the window is counted once, for its own bucket, and the reads give it to that bucket', () => {
    for (const [groupBy, offset] of [['day', 5.5], ['week', 5.5], ['month', -3], ['day', -9.5], ['week', 12.75], ['hour', 5.75]] as const) {
      const a = groupBy === 'hour' ? until - 3 * DAY + 17_000 : since + 12 * DAY + 1_800_000;
      const b = until - 4 * DAY - 3 * HOUR - 123_000;
      const buckets = bucketsOf(a, b, groupBy, offset * 3600);
      const pieces = piecesOf(buckets, [...ACCOUNT]);
      const { reads } = readPlanOf(pieces);
      // Each read's ranges hold its pieces; raw ranges only where pieces touch.
      for (const read of reads) {
        for (const p of pieces.filter((x) => x.grain === read.grain && x.sign === 1)) expect(read.ranges.some((r) => r.a <= p.a && p.b <= r.b)).toBe(true);
        if (read.grain === 'raw') expect(read.ranges.reduce((n, r) => n + r.b - r.a, 0)).toBe(pieces.filter((x) => x.grain === 'raw' && x.sign === 1).reduce((n, p) => n + p.b - p.a, 0));
      }
      const byBucket = new Map<number, Piece[]>(buckets.map((x) => [x.k, pieces.filter((p) => p.k === x.k)]));
      const wrong: unknown[] = [];
      for (let t = a; t < b; t += 47 * 60_000 + 13_000) {
        const bucket = buckets.find((x) => x.a <= t && t < x.b)!;
        for (const x of buckets.slice(Math.max(0, bucket.k - 1), bucket.k + 2)) {
          if (countedFor(byBucket.get(x.k)!, x.k, t) !== (x === bucket ? 1 : 0)) wrong.push({ groupBy, offset, t, k: x.k });
        }
        // The piece added that holds t is the one the reads give t to.
        const holder = byBucket.get(bucket.k)!.find((p) => p.sign === 1 && p.a <= t && t < p.b);
        if (holder && keyOf(reads.find((r) => r.grain === holder.grain)!, holder.grain === 'raw' ? t : holder.a) !== holder.k) wrong.push({ groupBy, offset, t, holder });
      }
      expect(wrong).toEqual([]);
    }
  });

  it('when rollup pieces lie a few units apart, then one range reads through the gap and the gap belongs to no piece', () => {
    // Local weeks 3 hours west: each starts at 03:00 UTC on a Sunday (1 March 2026 is one), so Sundays' days are hours.
    const pieces = piecesOf(bucketsOf(since, until, 'week', -3 * 3600), [...ACCOUNT]);
    const days = readPlanOf(pieces).reads.find((r) => r.grain === 'day')!;
    expect(days.ranges).toHaveLength(1);
    expect(keyOf(days, Date.UTC(2026, 2, 1))).toBe(-1);
    expect(keyOf(days, Date.UTC(2026, 2, 2))).not.toBe(-1);
  });

  it('when a window ends late in a month, then the month is added and its days and hours to come subtracted', () => {
    const end = Date.UTC(2026, 2, 28, 5, 2, 3);
    const pieces = piecesOf([{ k: 0, a: Date.UTC(2026, 1, 20), b: end }], [...ACCOUNT]);
    const { subtracted } = readPlanOf(pieces);
    expect(subtracted.map((p) => p.grain).sort()).toEqual(['day', 'hour', 'raw']);
    expect(pieces).toContainEqual({ k: 0, grain: 'month', a: Date.UTC(2026, 2, 1), b: Date.UTC(2026, 3, 1), sign: 1 });
  });

  it('when a window starts early in a month, then the month is added and its days before the start subtracted; a window and the one before it never both add a month', () => {
    const [a, b] = [Date.UTC(2025, 11, 3), Date.UTC(2026, 11, 3)];
    const pieces = piecesOf([{ k: 0, a, b }], ['month', 'day'], { heads: true });
    expect(pieces.filter((p) => p.sign === -1)).toEqual([{ k: 0, grain: 'day', a: Date.UTC(2025, 11, 1), b: a, sign: -1 }]);
    expect(pieces).toContainEqual({ k: 0, grain: 'month', a: Date.UTC(2025, 11, 1), b: Date.UTC(2026, 11, 1), sign: 1 });
    // Two days of day rows at each end, not 29 at the start.
    expect(pieces.filter((p) => p.grain === 'day').reduce((n, p) => n + (p.b - p.a) / DAY, 0)).toBe(4);
    for (let t = Date.UTC(2025, 10, 20); t < Date.UTC(2026, 11, 20); t += 7 * HOUR + 13_000) expect(countedFor(pieces, 0, t)).toBe(t >= a && t < b ? 1 : 0);
    // A summary's previous window ends where this one starts: the month is this window's (it
    // holds more of it), the previous window reads its two days, and each time counts once for each.
    const two = piecesOf([{ k: 0, a, b }, { k: 1, a: a - 365 * DAY, b: a }], ['month', 'day'], { heads: true });
    expect(two.filter((p) => p.k === 0 && p.sign === -1)).toHaveLength(1);
    const december = (pieces: Piece[]) => pieces.filter((p) => p.grain === 'month' && p.sign === 1 && p.a <= Date.UTC(2025, 11, 1) && Date.UTC(2025, 11, 1) < p.b);
    expect(december(two).map((p) => p.k)).toEqual([0]);
    // Late in a month the previous window takes it (its tail), and this one reads its days.
    const late = Date.UTC(2025, 11, 28);
    const lateTwo = piecesOf([{ k: 0, a: late, b }, { k: 1, a: late - 365 * DAY, b: late }], ['month', 'day'], { heads: true });
    expect(december(lateTwo).map((p) => p.k)).toEqual([1]);
    for (const [pieces, start] of [[two, a], [lateTwo, late]] as const) {
      expect(() => readPlanOf(pieces)).not.toThrow();
      for (let t = start - 400 * DAY; t < b + 20 * DAY; t += 7 * HOUR + 13_000) {
        expect(countedFor(pieces, 0, t)).toBe(t >= start && t < b ? 1 : 0);
        expect(countedFor(pieces, 1, t)).toBe(t >= start - 365 * DAY && t < start ? 1 : 0);
      }
    }
  });

  it('when a window starts early in one month and ends late in another, then both months are added and the days outside it subtracted', () => {
    const [a, b] = [Date.UTC(2026, 1, 10), Date.UTC(2026, 2, 28, 5, 2, 3)];
    const pieces = piecesOf([{ k: 0, a, b }], [...ACCOUNT], { heads: true });
    expect(pieces.filter((p) => p.sign === 1)).toEqual([{ k: 0, grain: 'month', a: Date.UTC(2026, 1, 1), b: Date.UTC(2026, 3, 1), sign: 1 }]);
    expect(pieces).toContainEqual({ k: 0, grain: 'day', a: Date.UTC(2026, 1, 1), b: a, sign: -1 });
    for (let t = Date.UTC(2026, 0, 25); t < Date.UTC(2026, 3, 5); t += 3 * HOUR + 17_000) expect(countedFor(pieces, 0, t)).toBe(t >= a && t < b ? 1 : 0);
  });

  it('when a bucket starts late in a day of a coarse grain, then its month is not taken: the rows before its start would outnumber its own', () => {
    // Agents (days the finest grain): 18:30 read as 5.5 hours of rows, not the month less 18.5 hours of them.
    const a = Date.UTC(2025, 11, 3, 18, 30);
    const pieces = piecesOf([{ k: 0, a, b: a + 365 * DAY }], ['month', 'day'], { heads: true });
    expect(pieces.filter((p) => p.sign === -1 && p.a < a)).toEqual([]);
    // Early in the day, the month is taken.
    const early = Date.UTC(2025, 11, 3, 5, 30);
    expect(piecesOf([{ k: 0, a: early, b: early + 365 * DAY }], ['month', 'day'], { heads: true }).filter((p) => p.sign === -1 && p.a < early)).not.toEqual([]);
  });

  it('when a bucket across a gap took a month as its tail, then the next does not take it as its head', () => {
    // Without the check both add January, and reading them is refused as overlapping.
    const buckets = [{ k: 1, a: Date.UTC(2025, 11, 20), b: Date.UTC(2026, 0, 11, 23, 30) }, { k: 0, a: Date.UTC(2026, 0, 12), b: Date.UTC(2026, 1, 5) }];
    const pieces = piecesOf(buckets, [...ACCOUNT], { heads: true });
    expect(pieces.filter((p) => p.grain === 'month' && p.sign === 1).map((p) => p.k)).toEqual([1]);
    expect(() => readPlanOf(pieces)).not.toThrow();
    for (let t = Date.UTC(2025, 11, 1); t < Date.UTC(2026, 1, 20); t += 3 * HOUR + 17_000) {
      for (const x of buckets) expect(countedFor(pieces, x.k, t)).toBe(t >= x.a && t < x.b ? 1 : 0);
    }
  });

  it('when buckets overlap, then reading them is refused', () => {
    expect(() => readPlanOf(piecesOf([{ k: 0, a: since, b: since + 2 * DAY }, { k: 1, a: since + DAY, b: since + 3 * DAY }], [...ACCOUNT]))).toThrow(/overlap/);
  });
});
