import { waitFor } from '@parley/testkit';
import { expectErrorBody } from '../../support/http';
import { DAY, T0, scriptedHistory, type Scripted } from './scripted';

/**
 * The scripted history (./scripted.ts: known times, published in a shuffled order, one event
 * twice, another account beside it), read back through the gateway: every number is checked
 * against the hand-computed value, and the summary, the timeseries summed over the same window and
 * the per-agent numbers agree.
 */
describe('reports: a scripted history through the gateway', () => {
  let s: Scripted;
  const t0 = T0;
  const day = DAY;
  const since = t0;
  const until = t0 + 2 * day;

  beforeAll(async () => {
    s = await scriptedHistory();
  });
  afterAll(() => s?.stop());

  const get = (path: string, token = s.acc.admin.token) => s.call('GET', `/api/v2/accounts/${s.acc.accountId}${path}`, { token });
  const window = `since=${since}&until=${until}`;
  const expectForbidden = (res: { status: number; body: unknown }) => {
    expect(res.status).toBe(403);
    expectErrorBody(res.body);
  };

  it('when the account summary is read, then every number is the hand-computed one and the previous window is empty', async () => {
    const res = await get(`/reports/summary?${window}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      conversations_count: 4,
      incoming_messages_count: 5,
      outgoing_messages_count: 7, // 2 + (automation + 2) + (bot + 1); the note and the activity are not sent
      resolutions_count: 3,
    });
    expect(res.body.avg_first_response_time).toBeCloseTo((160 + 400 + 60) / 3, 6); // 3: from the hand-off
    expect(res.body.reply_time).toBeCloseTo((100 + 300 + 400 + 50) / 4, 6);
    expect(res.body.avg_resolution_time).toBeCloseTo((600 + 1000 + (day + 100 - 3600)) / 3, 6);
    expect(res.body.previous).toEqual({ conversations_count: 0, incoming_messages_count: 0, outgoing_messages_count: 0, avg_first_response_time: null, avg_resolution_time: null, resolutions_count: 0, reply_time: null });
  });

  it('when the timeseries of each metric is summed over the window, then it equals the summary (account and per agent)', async () => {
    for (const scope of ['type=account', `type=agent&id=${s.x.userId}`, `type=agent&id=${s.y.userId}`, `type=team&id=${s.teamB}`, `type=inbox&id=${s.inboxId}`, 'type=label&id=11']) {
      const summary = (await get(`/reports/summary?${window}&${scope}`)).body;
      for (const metric of ['conversations_count', 'incoming_messages_count', 'outgoing_messages_count', 'resolutions_count']) {
        const series = (await get(`/reports?metric=${metric}&${window}&${scope}`)).body as Array<{ value: number; timestamp: number }>;
        expect(series.map((b) => b.timestamp)).toEqual([t0, t0 + day]);
        expect({ scope, metric, total: series.reduce((a, b) => a + b.value, 0) }).toEqual({ scope, metric, total: summary[metric] });
      }
      for (const [metric, key] of [['avg_first_response_time', 'avg_first_response_time'], ['avg_resolution_time', 'avg_resolution_time'], ['reply_time', 'reply_time']] as const) {
        const series = (await get(`/reports?metric=${metric}&${window}&${scope}`)).body as Array<{ value: number; count: number }>;
        const n = series.reduce((a, b) => a + b.count, 0);
        const avg = n === 0 ? null : series.reduce((a, b) => a + b.value * b.count, 0) / n;
        if (avg === null) expect({ scope, metric, v: summary[key] }).toEqual({ scope, metric, v: null });
        else expect(summary[key]).toBeCloseTo(avg, 6);
      }
    }
  });

  it('when read per agent, then the replier gets the reply and the first response, the assignee the resolution', async () => {
    const sx = (await get(`/reports/summary?${window}&type=agent&id=${s.x.userId}`)).body;
    expect(sx).toMatchObject({ conversations_count: 2, incoming_messages_count: 3, outgoing_messages_count: 3, resolutions_count: 1, avg_resolution_time: 600 });
    expect(sx.avg_first_response_time).toBeCloseTo(110, 6);
    expect(sx.reply_time).toBeCloseTo(200, 6);
    const sy = (await get(`/reports/summary?${window}&type=agent&id=${s.y.userId}`)).body;
    expect(sy).toMatchObject({ conversations_count: 1, incoming_messages_count: 1, outgoing_messages_count: 2, resolutions_count: 2, avg_first_response_time: 400 });
    expect(sy.reply_time).toBeCloseTo(225, 6);
    expect(sy.avg_resolution_time).toBeCloseTo((1000 + day + 100 - 3600) / 2, 6);
  });

  it('when grouped by day, then each day holds its own events', async () => {
    const res = await get(`/reports?metric=resolutions_count&${window}&group_by=day`);
    expect(res.body).toEqual([
      { value: 2, timestamp: t0 },
      { value: 1, timestamp: t0 + day },
    ]);
    const hours = (await get(`/reports?metric=conversations_count&${window}&group_by=hour`)).body as Array<{ value: number; timestamp: number }>;
    expect(hours).toHaveLength(48);
    expect(hours.slice(0, 3).map((b) => b.value)).toEqual([1, 1, 2]);
    // Buckets start at local midnight: 5.5 hours east of UTC the first bucket began at 18:30 UTC the day before.
    const shifted = (await get(`/reports?metric=resolutions_count&${window}&timezone_offset=5.5`)).body as Array<{ value: number; timestamp: number }>;
    expect(shifted.map((b) => b.timestamp)).toEqual([t0 - 5.5 * 3600, t0 + day - 5.5 * 3600, t0 + 2 * day - 5.5 * 3600]);
    expect(shifted.map((b) => b.value)).toEqual([2, 1, 0]);
  });

  it('when the bot metrics are read, then the hand-off counts once', async () => {
    const res = await get(`/reports?metric=bot_handoffs_count&${window}`);
    expect(res.body.map((b: { value: number }) => b.value)).toEqual([1, 0]);
  });

  it('when the other account reads its reports, then only its own conversation shows', async () => {
    const res = await s.call('GET', `/api/v2/accounts/${s.other.accountId}/reports/summary?${window}`, { token: s.other.admin.token });
    expect(res.body).toMatchObject({ conversations_count: 1, incoming_messages_count: 1, outgoing_messages_count: 1, resolutions_count: 1, avg_first_response_time: 20, avg_resolution_time: 30 });
  });

  it('when an agent asks, then 403 with the Error body; a member of another account 403 too', async () => {
    expectForbidden(await get(`/reports/summary?${window}`, s.x.token));
    expectForbidden(await get(`/reports?metric=conversations_count&${window}`, s.x.token));
    expectForbidden(await s.call('GET', `/api/v2/accounts/${s.acc.accountId}/reports/summary?${window}`, { token: s.other.admin.token }));
  });

  it('when a scope names an agent, inbox or team the account does not have (unknown, or another account\'s), then 404 with the Error body, never numbers', async () => {
    const ids: Array<[string, number]> = [
      ['agent', 999999],
      ['inbox', 999999],
      ['team', 999999],
      ['agent', s.other.agent.userId],
      ['inbox', s.otherInboxId],
      ['team', s.otherTeam],
    ];
    for (const [type, id] of ids) {
      for (const path of [`/reports?metric=conversations_count&${window}&type=${type}&id=${id}`, `/reports?metric=avg_resolution_time&${window}&type=${type}&id=${id}`, `/reports/summary?${window}&type=${type}&id=${id}`]) {
        const res = await get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expectErrorBody(res.body);
      }
    }
    // The other account's own ids are its to read.
    for (const scope of [`type=agent&id=${s.other.agent.userId}`, `type=inbox&id=${s.otherInboxId}`, `type=team&id=${s.otherTeam}`]) {
      const res = await s.call('GET', `/api/v2/accounts/${s.other.accountId}/reports/summary?${window}&${scope}`, { token: s.other.admin.token });
      expect({ scope, status: res.status, resolved: res.body.resolutions_count }).toEqual({ scope, status: 200, resolved: 1 });
    }
    // The tables list the account's own teams and inboxes only.
    expect(((await get(`/summary_reports/team?${window}`)).body as Array<{ id: number }>).map((r) => r.id)).toEqual([s.teamA, s.teamB]);
    expect(((await get(`/summary_reports/inbox?${window}`)).body as Array<{ id: number }>).map((r) => r.id)).toEqual([s.inboxId]);
  });

  it('when an agent or a team is removed after a report read it, then its reports are 404 (the removal reaches the copies)', async () => {
    const agent = await s.acc.addUser('agent');
    const team = await s.call('POST', `/api/v1/accounts/${s.acc.accountId}/teams`, { token: s.acc.admin.token, body: { name: 'Short-lived' } });
    expect(team.status).toBe(200);
    for (const scope of [`type=agent&id=${agent.userId}`, `type=team&id=${team.body.id}`]) {
      expect({ scope, status: (await get(`/reports/summary?${window}&${scope}`)).status }).toEqual({ scope, status: 200 });
    }
    expect((await s.call('DELETE', `/api/v1/accounts/${s.acc.accountId}/agents/${agent.userId}`, { token: s.acc.admin.token })).status).toBe(200);
    expect((await s.call('DELETE', `/api/v1/accounts/${s.acc.accountId}/teams/${team.body.id}`, { token: s.acc.admin.token })).status).toBe(200);
    for (const scope of [`type=agent&id=${agent.userId}`, `type=team&id=${team.body.id}`]) {
      const res = await waitFor(
        async () => {
          const r = await get(`/reports/summary?${window}&${scope}`);
          return r.status === 404 ? r : null;
        },
        { what: `${scope} to be 404`, timeoutMs: 20_000 },
      );
      expectErrorBody(res.body);
    }
  });

  it('when the parameters are bad, then 422 naming the field', async () => {
    const cases: Array<[string, string]> = [
      [`/reports?metric=nope&${window}`, 'metric'],
      [`/reports?${window}`, 'metric'],
      [`/reports?metric=conversations_count&${window}&type=planet`, 'type'],
      [`/reports?metric=conversations_count&${window}&type=agent`, 'id'],
      [`/reports?metric=conversations_count&until=${until}`, 'since'],
      [`/reports?metric=conversations_count&since=yesterday&until=${until}`, 'since'],
      [`/reports/summary?since=${since}&until=${since}`, 'until'],
      [`/reports/summary?since=${since}&until=${since + 367 * day}`, 'until'],
      [`/reports?metric=conversations_count&${window}&group_by=fortnight`, 'group_by'],
      [`/reports?metric=conversations_count&${window}&timezone_offset=abc`, 'timezone_offset'],
    ];
    for (const [path, field] of cases) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expectErrorBody(res.body);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const missing = await get(`/reports?metric=conversations_count&${window}&type=label&id=999`);
    expect(missing.status).toBe(404);
    expectErrorBody(missing.body);
  });
});
