import type { GroupBy } from './params';

/** A rollup grain: UTC hours, days, months (migration 004). */
export type Grain = 'hour' | 'day' | 'month';

/** A stretch `[a, b)` (ms) of bucket `k`: whole rollup units of `grain`, or `raw` (read from the rows), added or subtracted. */
export interface Piece {
  k: number;
  grain: Grain | 'raw';
  a: number;
  b: number;
  /** 1: added; -1: subtracted (see piecesOf). */
  sign: 1 | -1;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The UTC month holding `t`: the last one asked for is kept, as pieces are mostly made in time order (a Date per ask was most of their cost). */
let month = { start: 0, end: 0 };
const monthOf = (t: number): { start: number; end: number } => {
  if (t < month.start || t >= month.end) {
    const d = new Date(t);
    month = { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
  }
  return month;
};

const floorTo = (g: Grain, t: number): number => {
  if (g === 'hour') return Math.floor(t / HOUR) * HOUR;
  if (g === 'day') return Math.floor(t / DAY) * DAY;
  return monthOf(t).start;
};

/** The start of the unit after the one starting at `t`. */
const nextOf = (g: Grain, t: number): number => {
  if (g === 'hour') return t + HOUR;
  if (g === 'day') return t + DAY;
  return monthOf(t).end;
};

/**
 * Splits each bucket `[a, b)` into pieces: at each point the coarsest grain whose unit starts there
 * and ends inside the bucket, else the rows up to the next unit of the finest grain (or the
 * bucket's end). Adjacent pieces of one bucket, grain and sign merge into one range. A bucket that
 * ends inside a unit of the coarsest grain may instead take that whole unit and subtract what lies
 * after its end (`sign` -1) when that takes fewer units (a window ending today: the month, less its
 * days still to come, which hold nothing). With `heads` (a table of every agent, team or inbox,
 * whose units hold a row each per key: for one scope's few rows a unit costs less than the extra
 * read, so summaries and timeseries go without) one that starts inside such a unit does the same
 * with what lies before its start (a year from the 3rd: its first month less two days, not 29 days), unless
 * that reads more of the rows than its start's own stretch of them would (rows before the start
 * exist; a unit counts one whatever its rows). Two buckets never add the same unit, so each row read
 * belongs to one: of two adjacent buckets at most one takes the unit they share (one that holds more
 * of it by over a unit; maybe neither), and a head whose unit another bucket (across a gap) took as
 * its tail is read as it is. `grains` coarsest first.
 */
export function piecesOf(buckets: ReadonlyArray<{ k: number; a: number; b: number }>, grains: readonly Grain[], { heads = false }: { heads?: boolean } = {}): Piece[] {
  const out: Piece[] = [];
  const top = grains[0] as Grain;
  const tails = buckets.map(({ a, b }) => {
    const tail = floorTo(top, b);
    return tail > a && tail < b && unitsOf(tail, b, grains) > 1 + unitsOf(b, nextOf(top, tail), grains) ? tail : null;
  });
  const finest = grains[grains.length - 1] as Grain;
  buckets.forEach(({ k, a, b }, i) => {
    const head = floorTo(top, a);
    const headEnd = nextOf(top, head);
    // The rows read before the start (back to the finest unit's start) and after it (up to its end).
    const rawStart = floorTo(finest, a);
    const fewerRows = a - rawStart <= (rawStart === a ? 0 : nextOf(finest, rawStart) - a);
    const wholeHead =
      heads && head < a && fewerRows && headEnd <= b && unitsOf(a, headEnd, grains) > 1 + unitsOf(head, a, grains) && !tails.some((t, j) => j !== i && t === head);
    const from = wholeHead ? head : a;
    const tail = tails[i];
    if (tail != null) {
      const whole = nextOf(top, tail);
      split(out, k, from, whole, grains, 1);
      split(out, k, b, whole, grains, -1);
    } else split(out, k, from, b, grains, 1);
    if (wholeHead) split(out, k, head, a, grains, -1);
  });
  return out;
}

/** How many pieces' worth of units `[a, b)` takes (each unit, and each raw stretch, one). */
function unitsOf(a: number, b: number, grains: readonly Grain[]): number {
  const pieces: Piece[] = [];
  split(pieces, 0, a, b, grains, 1, false);
  return pieces.reduce((n, p) => n + (p.grain === 'raw' ? 1 : countUnits(p.grain, p.a, p.b)), 0);
}

function countUnits(g: Grain, a: number, b: number): number {
  if (g !== 'month') return (b - a) / (g === 'hour' ? HOUR : DAY);
  let n = 0;
  for (let t = a; t < b; t = nextOf(g, t)) n += 1;
  return n;
}

/** Whether a unit of `g` starts at `t` (a month's start is a day's, checked first: no Date for most). */
const startsAt = (g: Grain, t: number): boolean => (g === 'hour' ? t % HOUR === 0 : g === 'day' ? t % DAY === 0 : t % DAY === 0 && floorTo(g, t) === t);

function split(out: Piece[], k: number, a: number, b: number, grains: readonly Grain[], sign: 1 | -1, merge = true): void {
  const finest = grains[grains.length - 1] as Grain;
  let t = a;
  while (t < b) {
    const i = grains.findIndex((x) => startsAt(x, t) && nextOf(x, t) <= b);
    const g = i < 0 ? undefined : (grains[i] as Grain);
    let end: number;
    if (!g) end = Math.min(nextOf(finest, floorTo(finest, t)), b);
    else if (i === 0) end = nextOf(g, t);
    else {
      // Units of g follow one another up to the next start of a coarser one (which may fit) or
      // the last that fits, at once rather than one by one (a year of 5.5-hour days is 8,000 hours).
      const coarser = grains[i - 1] as Grain;
      end = Math.min(nextOf(coarser, floorTo(coarser, t)), floorTo(g, b));
    }
    const grain = g ?? 'raw';
    const last = out[out.length - 1];
    if (merge && last && last.k === k && last.grain === grain && last.sign === sign && last.b === t) last.b = end;
    else out.push({ k, grain, a: t, b: end, sign });
    t = end;
  }
}

export interface BucketSpan {
  k: number;
  /** The bucket's start (ms), what the timeseries names it by. */
  start: number;
  /** The part of the window it covers. */
  a: number;
  b: number;
}

/**
 * The buckets of `[since, until)` (ms): local hours, days, weeks (from Sunday, as Chatwoot's
 * groupdate), months or years `offsetSeconds` east of UTC; the first holds `since`.
 */
export function bucketsOf(since: number, until: number, groupBy: GroupBy, offsetSeconds: number): BucketSpan[] {
  const off = offsetSeconds * 1000;
  const trunc = (l: number): number => {
    if (groupBy === 'hour') return Math.floor(l / HOUR) * HOUR;
    const day = Math.floor(l / DAY) * DAY;
    if (groupBy === 'day') return day;
    if (groupBy === 'week') return day - new Date(day).getUTCDay() * DAY;
    const d = new Date(l);
    return groupBy === 'month' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) : Date.UTC(d.getUTCFullYear(), 0, 1);
  };
  const step = (l: number): number => {
    if (groupBy === 'hour') return l + HOUR;
    if (groupBy === 'day') return l + DAY;
    if (groupBy === 'week') return l + 7 * DAY;
    const d = new Date(l);
    return groupBy === 'month' ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) : Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  };
  const out: BucketSpan[] = [];
  for (let l = trunc(since + off); l < until + off; l = step(l)) {
    const start = l - off;
    out.push({ k: out.length, start, a: Math.max(start, since), b: Math.min(step(l) - off, until) });
  }
  return out;
}

/**
 * How many units of a rollup grain a gap between pieces may hold and still be read through (its
 * rows are read and given to no piece) rather than start another index range: a range costs a
 * descent and a loop of the statement, ~ as much as a few dozen rows read.
 */
export const GAP_UNITS = 48;

const UNIT_MS: Record<Grain, number> = { hour: HOUR, day: DAY, month: 31 * DAY };

/**
 * How to read the pieces added (sign 1) of one grain: the index ranges `[a, b)` that hold them
 * (a rollup grain's merged across gaps of up to `GAP_UNITS`, the rows' only where pieces touch, as
 * a gap's rows cost as much as any), and which piece a time read belongs to: the `keys[i - 1]` of
 * the last of the sorted `thresholds` at or before it (i as SQL's `width_bucket` gives it), -1 in
 * a gap, none before the first.
 */
export interface GrainRead {
  grain: Grain | 'raw';
  ranges: Array<{ a: number; b: number }>;
  thresholds: number[];
  keys: number[];
  /** Whether the ranges hold gaps (rows of no piece); if not, and the pieces are of one bucket, every row read is that bucket's. */
  gaps: boolean;
}

/**
 * The reads of a set of pieces: per grain, the pieces added; and the pieces subtracted (the units
 * and rows before a bucket's start and past its end), to be read one by one. Pieces added of one
 * grain never overlap when the buckets do not (a timeseries', a summary's window and the one
 * before): a bucket's own do not, and a whole unit reaching past a bucket's edge is taken by one
 * bucket only (piecesOf). Overlapping buckets throw.
 */
export function readPlanOf(pieces: readonly Piece[], gap = GAP_UNITS): { reads: GrainRead[]; subtracted: Piece[] } {
  const by = new Map<Grain | 'raw', Piece[]>();
  const subtracted: Piece[] = [];
  for (const p of pieces) {
    if (p.sign === -1) {
      subtracted.push(p);
      continue;
    }
    let list = by.get(p.grain);
    if (!list) by.set(p.grain, (list = []));
    list.push(p);
  }
  const reads: GrainRead[] = [];
  for (const [grain, list] of [...by.entries()].sort(([x], [y]) => (x < y ? -1 : 1))) {
    list.sort((x, y) => x.a - y.a);
    const slack = grain === 'raw' ? 0 : gap * UNIT_MS[grain];
    const read: GrainRead = { grain, ranges: [], thresholds: [], keys: [], gaps: false };
    let last: Piece | undefined;
    for (const p of list) {
      if (last && p.a < last.b) throw new Error('readPlanOf: the buckets overlap');
      if (last && p.a > last.b) read.thresholds.push(last.b), read.keys.push(-1);
      read.thresholds.push(p.a), read.keys.push(p.k);
      const range = read.ranges[read.ranges.length - 1];
      if (range && p.a <= range.b + slack) {
        read.gaps ||= p.a > range.b;
        range.b = p.b;
      } else read.ranges.push({ a: p.a, b: p.b });
      last = p;
    }
    if (last) read.thresholds.push(last.b), read.keys.push(-1);
    reads.push(read);
  }
  return { reads, subtracted };
}
