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

const floorTo = (g: Grain, t: number): number => {
  if (g === 'hour') return Math.floor(t / HOUR) * HOUR;
  if (g === 'day') return Math.floor(t / DAY) * DAY;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

/** The start of the unit after the one starting at `t`. */
const nextOf = (g: Grain, t: number): number => {
  if (g === 'hour') return t + HOUR;
  if (g === 'day') return t + DAY;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/**
 * Splits each bucket `[a, b)` into pieces: at each point the coarsest grain whose unit starts there
 * and ends inside the bucket, else the rows up to the next unit of the finest grain (or the
 * bucket's end). Adjacent pieces of one bucket, grain and sign merge into one range. A bucket that
 * ends inside a unit of the coarsest grain may instead take that whole unit and subtract what lies
 * after its end (`sign` -1) when that takes fewer units (a window ending today: the month, less its
 * days still to come, which hold nothing). `grains` coarsest first.
 */
export function piecesOf(buckets: ReadonlyArray<{ k: number; a: number; b: number }>, grains: readonly Grain[]): Piece[] {
  const out: Piece[] = [];
  const top = grains[0] as Grain;
  for (const { k, a, b } of buckets) {
    const tail = floorTo(top, b);
    const whole = nextOf(top, tail);
    if (tail > a && tail < b && unitsOf(tail, b, grains) > 1 + unitsOf(b, whole, grains)) {
      split(out, k, a, whole, grains, 1);
      split(out, k, b, whole, grains, -1);
    } else split(out, k, a, b, grains, 1);
  }
  return out;
}

/** How many pieces' worth of units `[a, b)` takes (each unit, and each raw stretch, one). */
function unitsOf(a: number, b: number, grains: readonly Grain[]): number {
  const pieces: Piece[] = [];
  split(pieces, 0, a, b, grains, 1, false);
  return pieces.reduce((n, p) => n + (p.grain === 'raw' ? 1 : countUnits(p.grain, p.a, p.b)), 0);
}

function countUnits(g: Grain, a: number, b: number): number {
  let n = 0;
  for (let t = a; t < b; t = nextOf(g, t)) n += 1;
  return n;
}

function split(out: Piece[], k: number, a: number, b: number, grains: readonly Grain[], sign: 1 | -1, merge = true): void {
  const finest = grains[grains.length - 1] as Grain;
  let t = a;
  while (t < b) {
    const g = grains.find((x) => floorTo(x, t) === t && nextOf(x, t) <= b);
    const grain = g ?? 'raw';
    const end = g ? nextOf(g, t) : Math.min(nextOf(finest, floorTo(finest, t)), b);
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
