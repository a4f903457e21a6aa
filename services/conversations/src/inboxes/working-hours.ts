import { z } from 'zod';
import { ValidationError, type WorkingHour } from '@parley/shared';

/**
 * An inbox's working hours, as Chatwoot keeps them (`working_hours` rows, `weekly_schedule`): one
 * entry per day of the week, Sunday (0) first. A new inbox gets Chatwoot's default week (Monday to
 * Friday 09:00-17:00, the weekend closed); a create or update names the days it changes, each
 * merged field by field into that day (Chatwoot's `update_working_hours`), and the resulting week
 * is checked as Chatwoot's WorkingHour model checks a day. Reports use them for
 * `value_in_business_hours` (docs/reports.md).
 */

const hour = z.number().int().min(0).max(23).nullable();
const minute = z.number().int().min(0).max(59).nullable();

/** One day of a create or update body: `day_of_week` names the day, the rest is what changes. */
export const workingHourInput = z.strictObject({
  day_of_week: z.number().int().min(0).max(6),
  closed_all_day: z.boolean().optional(),
  open_all_day: z.boolean().optional(),
  open_hour: hour.optional(),
  open_minutes: minute.optional(),
  close_hour: hour.optional(),
  close_minutes: minute.optional(),
});
export type WorkingHourInput = z.infer<typeof workingHourInput>;

export const workingHoursInput = z
  .array(workingHourInput)
  .max(7)
  .superRefine((days, ctx) => {
    const seen = new Set<number>();
    days.forEach((d, i) => {
      if (seen.has(d.day_of_week)) ctx.addIssue({ code: 'custom', path: [i, 'day_of_week'], message: 'names a day already given' });
      seen.add(d.day_of_week);
    });
  });

/** Whether a time zone name is one this runtime (and so the reports) can compute in. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const closedDay = (d: number): WorkingHour => ({ day_of_week: d, closed_all_day: true, open_hour: null, open_minutes: null, close_hour: null, close_minutes: null, open_all_day: false });
const openDay = (d: number): WorkingHour => ({ day_of_week: d, closed_all_day: false, open_hour: 9, open_minutes: 0, close_hour: 17, close_minutes: 0, open_all_day: false });

/** Chatwoot's `create_default_working_hours`. */
export function defaultWeek(): WorkingHour[] {
  return [0, 1, 2, 3, 4, 5, 6].map((d) => (d === 0 || d === 6 ? closedDay(d) : openDay(d)));
}

/** A stored week as the API and the contract show it: seven days, Sunday first (a missing day is closed). */
export function weekOf(stored: unknown): WorkingHour[] {
  const byDay = new Map<number, WorkingHour>();
  if (Array.isArray(stored)) for (const d of stored as WorkingHour[]) byDay.set(d.day_of_week, d);
  return [0, 1, 2, 3, 4, 5, 6].map((d) => byDay.get(d) ?? closedDay(d));
}

/**
 * The week after applying the changed days to `before`, checked: a day open all day runs 00:00 to
 * 23:59 (Chatwoot's `ensure_open_all_day_hours`); a day that is not closed needs its four times, in
 * range, closing after opening; a day cannot be both open and closed all day. 422 naming
 * `working_hours[i].<field>` otherwise.
 */
export function mergeWeek(before: WorkingHour[], changes: WorkingHourInput[]): WorkingHour[] {
  const week = weekOf(before).map((d) => ({ ...d }));
  const problems: Array<{ field: string; message: string; code: string }> = [];
  changes.forEach((c, i) => {
    const day = week[c.day_of_week] as WorkingHour;
    for (const k of ['closed_all_day', 'open_all_day', 'open_hour', 'open_minutes', 'close_hour', 'close_minutes'] as const) {
      if (c[k] !== undefined) (day as Record<string, unknown>)[k] = c[k];
    }
    const field = (f: string) => `working_hours[${i}].${f}`;
    if (day.open_all_day && day.closed_all_day) {
      problems.push({ field: field('open_all_day'), message: 'open_all_day and closed_all_day cannot be true at the same time', code: 'invalid' });
      return;
    }
    if (day.open_all_day) Object.assign(day, { open_hour: 0, open_minutes: 0, close_hour: 23, close_minutes: 59 });
    if (day.closed_all_day) return;
    const missing = (['open_hour', 'open_minutes', 'close_hour', 'close_minutes'] as const).filter((k) => day[k] === null);
    for (const k of missing) problems.push({ field: field(k), message: 'is required unless the day is closed all day', code: 'blank' });
    if (missing.length > 0) return;
    const open = (day.open_hour as number) * 60 + (day.open_minutes as number);
    const close = (day.close_hour as number) * 60 + (day.close_minutes as number);
    if (open >= close) problems.push({ field: field('close_hour'), message: 'Closing time cannot be before opening time', code: 'invalid' });
  });
  if (problems.length > 0) throw new ValidationError(problems.map((p) => `${p.field} ${p.message}`).join(', '), problems);
  return week;
}
