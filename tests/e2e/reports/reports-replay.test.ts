import { Client } from 'pg';
import type { Pool } from 'pg';
import { replayReports } from '@parley/reports';
import { DAY, T0, scriptedHistory, waitForReports, type Scripted } from './scripted';
import { History } from './history';

/** Rebuilding: the reporting events wiped and rebuilt from the facts, and the events delivered again, give the same numbers. */
describe('reports: replay rebuilds identical numbers', () => {
  let s: Scripted;
  const window = `since=${T0}&until=${T0 + 2 * DAY}`;

  beforeAll(async () => {
    s = await scriptedHistory();
  });
  afterAll(() => s?.stop());

  const get = async (path: string) => (await s.call('GET', `/api/v2/accounts/${s.acc.accountId}${path}`, { token: s.acc.admin.token })).body;

  /** Every number the reports give for the scripted window. */
  async function everything(): Promise<unknown> {
    const out: Record<string, unknown> = {};
    for (const scope of ['type=account', `type=agent&id=${s.x.userId}`, `type=agent&id=${s.y.userId}`, `type=team&id=${s.teamB}`, 'type=label&id=11']) {
      out[`summary ${scope}`] = await get(`/reports/summary?${window}&${scope}`);
      for (const metric of ['conversations_count', 'outgoing_messages_count', 'avg_first_response_time', 'reply_time', 'avg_resolution_time', 'resolutions_count', 'bot_handoffs_count']) {
        out[`${metric} ${scope}`] = await get(`/reports?metric=${metric}&${window}&${scope}&group_by=hour`);
      }
    }
    for (const dim of ['agent', 'team', 'inbox', 'label']) out[`table ${dim}`] = await get(`/summary_reports/${dim}?${window}`);
    out['bot'] = await get(`/reports/bot_summary?${window}`);
    return out;
  }

  it('when the reporting events and the rollups are deleted and rebuilt from the facts, then every number is the same', async () => {
    const before = await everything();
    const db = new Client({ connectionString: s.stack.env.db.url });
    await db.connect();
    try {
      await db.query('DELETE FROM reports.reporting_events WHERE account_id = $1', [s.acc.accountId]);
      await db.query('DELETE FROM reports.rollups WHERE account_id = $1', [s.acc.accountId]);
    } finally {
      await db.end();
    }
    expect((await get(`/reports/summary?${window}`)).resolutions_count).toBe(0);
    const result = await replayReports(s.stack.services['reports']!.deps.pool as Pool, { accountId: s.acc.accountId });
    expect(result.conversations).toBe(4);
    expect(await everything()).toEqual(before);
  });

  it('when every event is delivered again, then nothing changes', async () => {
    const before = await everything();
    await s.bus.publish(...[...s.events].reverse());
    // Then a sentinel (another account's conversation, far from the window) behind them, twice over:
    // once it is in, the redeliveries before it were handled.
    for (const id of [50, 51]) {
      const sentinel = new History(s.other.accountId, T0 - 30 * DAY).create(id, 0).events;
      await s.bus.publish(...sentinel);
      await waitForReports(s.stack, sentinel);
    }
    expect(await everything()).toEqual(before);
  });
});
