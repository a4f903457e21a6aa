import { Client } from 'pg';
import type { Pool } from 'pg';
import { replayReports } from '@parley/reports';
import { DAY, T0, scriptedHistory, type Scripted } from './scripted';
import { expectRowsAgree, rollupsOf, type Scope } from './rows-oracle';

const METRICS = ['conversations_count', 'incoming_messages_count', 'outgoing_messages_count', 'avg_first_response_time', 'avg_resolution_time', 'reply_time', 'resolutions_count', 'bot_handoffs_count'];

/**
 * The rollups (whole UTC hours, days and months, kept with the rows) and the rows at the edges
 * give the numbers the rows alone give, for windows and buckets that do not fall on an hour, a day
 * or a month, in every scope; and the rollups the consumer kept equal those rebuilt from the rows.
 */
describe('reports: rollups and the rows agree', () => {
  let s: Scripted;
  let db: Client;
  const get = async (path: string) => {
    const res = await s.call('GET', `/api/v2/accounts/${s.acc.accountId}${path}`, { token: s.acc.admin.token });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };

  beforeAll(async () => {
    s = await scriptedHistory();
    db = new Client({ connectionString: s.stack.env.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await s?.stop();
  });

  it('when windows start and end inside hours and buckets are local to odd offsets, then every bucket, the summary and the table rows equal the rows summed', async () => {
    const scopes: Scope[] = [{ type: 'account' }, { type: 'agent', id: s.x.userId }, { type: 'agent', id: s.y.userId }, { type: 'team', id: s.teamB }, { type: 'inbox', id: s.inboxId }];
    const cases = [
      // Edges inside the first reply's hour and the reopening's day; local days 05:30 east.
      { since: T0 + 150, until: T0 + DAY + 75, groupBy: 'day', offset: 5.5 },
      { since: T0 + 59, until: T0 + 2 * DAY - 1, groupBy: 'hour', offset: -3 },
      { since: T0 + 3601, until: T0 + DAY + 60, groupBy: 'hour', offset: 5.75 },
      // Whole months around the history (February, March 2025) with ragged edges: month pieces.
      { since: T0 - 40 * DAY + 123, until: T0 + 45 * DAY - 7, groupBy: 'week', offset: 5.5 },
      { since: T0 - 40 * DAY, until: T0 + 45 * DAY, groupBy: 'month', offset: -3 },
      { since: T0 - 40 * DAY, until: T0 + 45 * DAY, groupBy: 'day', offset: 0 },
      // A window shorter than its one bucket.
      { since: T0 + 3 * 3600 + 17, until: T0 + 20 * 3600, groupBy: 'month', offset: 5.5 },
      // Mid-month to late in a month: the last month's rollup less its hours and days to come
      // (pieces subtracted), empty weeks, buckets 3.5 hours west.
      { since: T0 - 10 * DAY + 1800, until: T0 + 26 * DAY + 5 * 3600 + 123, groupBy: 'week', offset: -3.5 },
      { since: T0 - 40 * DAY + 7, until: T0 + 26 * DAY + 5 * 3600 + 123, groupBy: 'year', offset: 12.75 },
      // Early in a month to past its end: the first month's rollup less the days and rows before
      // the start, which hold the history's first day (pieces subtracted before the start).
      { since: T0 + DAY + 1800, until: T0 + 45 * DAY, groupBy: 'month', offset: 0 },
      { since: T0 + 1800, until: T0 + 300 * DAY + 7, groupBy: 'year', offset: 0 },
      // Local days 9.5 hours west, most of them empty.
      { since: T0 - 5 * DAY, until: T0 + 3 * DAY, groupBy: 'day', offset: -9.5 },
    ];
    for (const scope of scopes) {
      // Hourly buckets (many) for the account and one agent; the rest for every scope.
      for (const c of cases.filter((x) => x.groupBy !== 'hour' || scope.type === 'account' || scope === scopes[1])) {
        await expectRowsAgree(db, get, s.acc.accountId, { scope, ...c, businessHours: false, metrics: METRICS });
      }
    }
  }, 180_000);

  it('when the rollups are rebuilt from the rows, then they are those the consumer kept, and a replay gives the same', async () => {
    // The consumer derived facts that came after the others from the stored timeline alone, and
    // rebuilt on those that came late: a replay derives everything again, with the same result.
    const derived = async () =>
      (
        await db.query(
          `SELECT r.conversation_id, r.name, r.value, r.value_in_business_hours, r.event_start_time, r.event_end_time, r.user_id, r.team_id, r.inbox_id
             FROM reports.reporting_events r WHERE r.account_id = $1 ORDER BY 1, 2, 5, 6, 3`,
          [s.acc.accountId],
        )
      ).rows;
    const timelines = async () => (await db.query('SELECT id, timeline, last_fact_at, last_fact_seq FROM reports.conversations WHERE account_id = $1 ORDER BY id', [s.acc.accountId])).rows;
    const [events, states] = [await derived(), await timelines()];
    expect(states.every((c) => c.timeline !== null)).toBe(true);
    const kept = await rollupsOf(db, s.acc.accountId);
    expect(kept.length).toBeGreaterThan(0);
    await db.query('SELECT reports.rebuild_rollups($1)', [s.acc.accountId]);
    expect(await rollupsOf(db, s.acc.accountId)).toEqual(kept);
    // Wrong rollups (as after a bug) are put right by the replay command.
    await db.query(`UPDATE reports.rollups SET n = n + 5, v = v + 1 WHERE account_id = $1 AND grain = 'day'`, [s.acc.accountId]);
    await replayReports(s.stack.services['reports']!.deps.pool as Pool, { accountId: s.acc.accountId });
    expect(await rollupsOf(db, s.acc.accountId)).toEqual(kept);
    expect(await derived()).toEqual(events);
    expect(await timelines()).toEqual(states);
  });

  it('when another account has rollups, then a window of this one never counts them', async () => {
    const w = `since=${T0 - 40 * DAY}&until=${T0 + 45 * DAY}`;
    const other = await s.call('GET', `/api/v2/accounts/${s.other.accountId}/reports/summary?${w}`, { token: s.other.admin.token });
    expect(other.body).toMatchObject({ conversations_count: 1, resolutions_count: 1, outgoing_messages_count: 1 });
    expect(await get(`/reports/summary?${w}`)).toMatchObject({ conversations_count: 4, resolutions_count: 3 });
  });

  it('when a window ends late in a month with numbers after its end, then its month less the days, hours and rows after the end is the rows summed', async () => {
    // Reply times through late March 2025 in the other account (after the test above read it):
    // a window ending on the 28th takes March's rollup and subtracts what comes after its end.
    const other = s.other.accountId;
    const at = [18.5, 25.25, 26.1, 26.2 + 1 / 24, 26.9, 27.3, 28.75, 29.99].map((d) => new Date((T0 + Math.round(d * DAY)) * 1000));
    for (const [i, t] of at.entries()) {
      await db.query(
        `INSERT INTO reports.reporting_events (account_id, name, value, value_in_business_hours, event_start_time, event_end_time, conversation_id, created_at)
         VALUES ($1, 'reply_time', $2, $3, $4, $4, 1, $4)`,
        [other, 60 * (i + 1), 7 * i, t],
      );
    }
    await db.query('SELECT reports.rebuild_rollups($1)', [other]);
    const getOther = async (path: string) => {
      const res = await s.call('GET', `/api/v2/accounts/${other}${path}`, { token: s.other.admin.token });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      return res.body;
    };
    const until = T0 + 26 * DAY + 5 * 3600 + 123;
    for (const c of [
      { since: T0 - 3 * DAY, until, groupBy: 'week', offset: 0, businessHours: false },
      { since: T0 + 3 * DAY + 1, until, groupBy: 'month', offset: 5.5, businessHours: true },
    ]) {
      await expectRowsAgree(db, getOther, other, { scope: { type: 'account' }, ...c, metrics: ['reply_time'] });
    }
  });
});
