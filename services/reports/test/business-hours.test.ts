import { defaultWorkingHours } from '@parley/testkit';
import { businessHoursOf, businessSeconds } from '../src/events/business-hours';

const at = (iso: string) => new Date(iso);
const H = 3600;

describe('business hours: the seconds of an interval inside an inbox\'s working hours', () => {
  const utcWeek = businessHoursOf({ working_hours_enabled: true, timezone: 'UTC', working_hours: defaultWorkingHours() });

  it('when working hours are off, or the time zone is not one, then there are none (0)', () => {
    expect(businessHoursOf({ working_hours_enabled: false, timezone: 'UTC', working_hours: defaultWorkingHours() })).toBeNull();
    expect(businessHoursOf({ working_hours_enabled: true, timezone: 'Mars/Olympus', working_hours: defaultWorkingHours() })).toBeNull();
    expect(businessSeconds(at('2025-03-03T08:00:00Z'), at('2025-03-03T10:00:00Z'), null)).toBe(0);
  });

  it('when an interval crosses opening and closing times, then only the part inside counts (Monday to Friday 09:00-17:00 UTC)', () => {
    // Monday 2025-03-03.
    expect(businessSeconds(at('2025-03-03T08:00:00Z'), at('2025-03-03T10:00:00Z'), utcWeek)).toBe(H);
    expect(businessSeconds(at('2025-03-03T16:30:00Z'), at('2025-03-04T09:15:00Z'), utcWeek)).toBe(0.5 * H + 0.25 * H);
    expect(businessSeconds(at('2025-03-03T17:00:00Z'), at('2025-03-04T09:00:00Z'), utcWeek)).toBe(0);
    // Friday evening to Monday morning: the weekend is closed.
    expect(businessSeconds(at('2025-03-07T16:00:00Z'), at('2025-03-10T10:00:00Z'), utcWeek)).toBe(2 * H);
    // Two full weeks: ten days of eight hours.
    expect(businessSeconds(at('2025-03-02T00:00:00Z'), at('2025-03-16T00:00:00Z'), utcWeek)).toBe(80 * H);
  });

  it('when the inbox is in another time zone, then its local hours count (Asia/Kolkata, UTC+05:30)', () => {
    const ist = businessHoursOf({ working_hours_enabled: true, timezone: 'Asia/Kolkata', working_hours: defaultWorkingHours() });
    // Monday 08:30-09:30 IST: half an hour after opening.
    expect(businessSeconds(at('2025-03-03T03:00:00Z'), at('2025-03-03T04:00:00Z'), ist)).toBe(0.5 * H);
    // Monday 09:00 IST is 03:30 UTC; closing 17:00 IST is 11:30 UTC.
    expect(businessSeconds(at('2025-03-03T00:00:00Z'), at('2025-03-03T23:59:00Z'), ist)).toBe(8 * H);
  });

  it('when a day is open all day, then it runs 00:00 to 23:59 local, a clock change included (America/New_York, 2025-03-09 has 23 hours)', () => {
    const week = defaultWorkingHours().map((d) => (d.day_of_week === 0 ? { ...d, closed_all_day: false, open_all_day: true } : { ...d, closed_all_day: true }));
    const ny = businessHoursOf({ working_hours_enabled: true, timezone: 'America/New_York', working_hours: week });
    // Sunday 00:00 EST (05:00 UTC) to 23:59 EDT (03:59 UTC the next day): 22 h 59 min.
    expect(businessSeconds(at('2025-03-08T00:00:00Z'), at('2025-03-11T00:00:00Z'), ny)).toBe(22 * H + 59 * 60);
    // An ordinary Sunday: 23 h 59 min.
    expect(businessSeconds(at('2025-03-15T00:00:00Z'), at('2025-03-18T00:00:00Z'), ny)).toBe(23 * H + 59 * 60);
  });

  it('when the interval is empty or backwards, then 0', () => {
    expect(businessSeconds(at('2025-03-03T10:00:00Z'), at('2025-03-03T10:00:00Z'), utcWeek)).toBe(0);
    expect(businessSeconds(at('2025-03-03T11:00:00Z'), at('2025-03-03T10:00:00Z'), utcWeek)).toBe(0);
  });
});
