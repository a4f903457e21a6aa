import type { Inbox } from '@parley/shared';

/**
 * An inbox's working hours as a fact records them (the inbox's copy when the fact was recorded):
 * its IANA time zone and, per day of the week (0 = Sunday), the open interval in minutes after
 * local midnight, or null on a closed day. Null altogether when the inbox's working hours are off
 * (Chatwoot: `value_in_business_hours` 0).
 */
export interface BusinessHours {
  timezone: string;
  days: Array<[number, number] | null>;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timezone: string): Intl.DateTimeFormat | null {
  let f = formats.get(timezone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    } catch {
      return null;
    }
    formats.set(timezone, f);
  }
  return f;
}

/** The working hours of an inbox copy, or null when they are off (or its time zone is not one). */
export function businessHoursOf(inbox: Pick<Inbox, 'working_hours_enabled' | 'timezone' | 'working_hours'> | null): BusinessHours | null {
  if (!inbox || !inbox.working_hours_enabled || !format(inbox.timezone)) return null;
  const days: BusinessHours['days'] = [null, null, null, null, null, null, null];
  for (const d of inbox.working_hours) {
    if (d.closed_all_day) continue;
    // Chatwoot stores a day open all day as 00:00-23:59.
    const open = d.open_all_day ? 0 : (d.open_hour ?? 0) * 60 + (d.open_minutes ?? 0);
    const close = d.open_all_day ? 23 * 60 + 59 : (d.close_hour ?? 0) * 60 + (d.close_minutes ?? 0);
    if (close > open) days[d.day_of_week] = [open, close];
  }
  return { timezone: inbox.timezone, days };
}

/** Local wall time minus UTC at an instant, in ms. */
function offsetAt(f: Intl.DateTimeFormat, t: number): number {
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p['year'] as number, (p['month'] as number) - 1, p['day'], p['hour'], p['minute'], p['second']);
  return wall - (t - (((t % 1000) + 1000) % 1000));
}

/** The instant of a local wall time (a time skipped by a clock change lands just after it). */
function instantOf(f: Intl.DateTimeFormat, wallUtcMs: number): number {
  const first = wallUtcMs - offsetAt(f, wallUtcMs);
  return wallUtcMs - offsetAt(f, first);
}

const DAY_MS = 86_400_000;

/**
 * Seconds of `[from, to)` inside the working hours, in the inbox's time zone (what Chatwoot's
 * `business_hours(inbox, from, to)` gives, with the working_hours gem): 0 without working hours.
 */
export function businessSeconds(from: Date, to: Date, hours: BusinessHours | null): number {
  if (!hours) return 0;
  const f = format(hours.timezone);
  const start = from.getTime();
  const end = to.getTime();
  if (!f || end <= start) return 0;
  // Local calendar days from the one holding `from` to the one holding `to`.
  const localDay = (t: number) => Math.floor((t + offsetAt(f, t)) / DAY_MS) * DAY_MS;
  let total = 0;
  for (let day = localDay(start), last = localDay(end); day <= last; day += DAY_MS) {
    const open = hours.days[new Date(day).getUTCDay()];
    if (!open) continue;
    const s = Math.max(start, instantOf(f, day + open[0] * 60_000));
    const e = Math.min(end, instantOf(f, day + open[1] * 60_000));
    if (e > s) total += e - s;
  }
  return total / 1000;
}
