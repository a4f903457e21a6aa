import { DAY, T0, scriptedHistory, type Scripted } from './scripted';

/**
 * The CSV downloads over the scripted history (./scripted.ts), through the gateway, against
 * Chatwoot's files: the file name, "Reporting period" and an empty line, its header, then one row per
 * agent, inbox, label or team with the five numbers of its `ReportsHelper` (conversations, first
 * response, resolution, customer waiting (reply) time, resolutions), times humanised as its
 * TimeFormatPresenter (the two largest units, "--" for none); the traffic heatmap as its HeatmapHelper
 * lays it out (one column per day, one line per hour).
 */
describe('reports: CSV downloads through the gateway', () => {
  let s: Scripted;
  const window = `since=${T0}&until=${T0 + 2 * DAY}`;

  beforeAll(async () => {
    s = await scriptedHistory();
  });
  afterAll(() => s?.stop());

  const download = async (path: string, token = s.acc.admin.token) => {
    const res = await s.call('GET', `/api/v2/accounts/${s.acc.accountId}${path}`, { token, headers: { accept: 'text/csv' } });
    return res;
  };
  const lines = (text: string) => text.split('\n').slice(0, -1);
  const csvOk = async (path: string, file: string) => {
    const res = await download(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename=${file}`);
    expect(res.text.endsWith('\n')).toBe(true);
    return lines(res.text);
  };
  const period = 'Reporting period 2025-03-02 to 2025-03-04';

  it('when the agents report is downloaded, then every member has a row with their numbers', async () => {
    const rows = await csvOk(`/reports/agents?${window}`, 'agents_report.csv');
    expect(rows.slice(0, 3)).toEqual([period, '', 'Agent name,Assigned conversations,Avg first response time,Avg resolution time,Avg customer waiting time,Resolution Count']);
    expect(rows.slice(3).sort()).toEqual(
      [
        `${s.acc.admin.name},0,--,--,--,0`,
        `${s.x.name},2,1 minute 50 seconds,10 minutes,3 minutes 20 seconds,1`,
        // Resolutions after 1000 s and 82,900 s: 11 h 39 min 10 s on average.
        `${s.y.name},1,6 minutes 40 seconds,11 hours 39 minutes,3 minutes 45 seconds,2`,
      ].sort(),
    );
  });

  it('when the inboxes, teams and labels reports are downloaded, then each has its row with its numbers', async () => {
    expect(await csvOk(`/reports/inboxes?${window}`, 'inboxes_report.csv')).toEqual([
      period,
      '',
      'Inbox name,Inbox type,No. of conversations,Avg first response time,Avg resolution time,Avg customer waiting time,Resolution Count',
      // First responses 160, 400, 60 s; resolutions 600, 1000, 82,900 s; replies 100, 300, 400, 50 s.
      'Website,API,4,3 minutes 26 seconds,7 hours 49 minutes,3 minutes 32 seconds,3',
    ]);
    expect(await csvOk(`/reports/teams?${window}`, 'teams_report.csv')).toEqual([
      period,
      '',
      'Team name,Conversations count,Avg first response time,Avg resolution time,Avg customer waiting time,Resolution Count',
      'Team A,1,2 minutes 40 seconds,10 minutes,3 minutes 20 seconds,1',
      'Team B,1,6 minutes 40 seconds,11 hours 39 minutes,3 minutes 45 seconds,2',
    ]);
    expect(await csvOk(`/reports/labels?${window}`, 'labels_report.csv')).toEqual([
      period,
      '',
      'Label,No. of conversations,Avg first response time,Avg resolution time,Avg reply time,Resolution Count',
      'billing,1,2 minutes 40 seconds,10 minutes,3 minutes 20 seconds,1',
    ]);
  });

  it('when the traffic heatmap is downloaded, then one column per day and one line per hour hold the conversations created', async () => {
    const zero = (n: number) => Array.from({ length: n }, () => '0').join(',');
    const utc = await csvOk(`/reports/conversation_traffic?${window}`, 'conversation_traffic.csv');
    expect(utc).toHaveLength(2 + 24);
    expect(utc.slice(0, 5)).toEqual(['Timezone,UTC+00:00', 'Start of the hour,2025-03-02,2025-03-03', '00:00,1,0', '01:00,1,0', '02:00,2,0']);
    expect(utc.slice(5)).toEqual(Array.from({ length: 21 }, (_, i) => `${String(i + 3).padStart(2, '0')}:00,${zero(2)}`));
    // 5.5 hours east: the window's local days are three, the conversations at 05:30, 06:30, 07:30 and 08:00.
    const ist = await csvOk(`/reports/conversation_traffic?${window}&timezone_offset=5.5`, 'conversation_traffic.csv');
    expect(ist.slice(0, 2)).toEqual(['Timezone,UTC+05:30', 'Start of the hour,2025-03-02,2025-03-03,2025-03-04']);
    expect(ist.slice(2 + 5, 2 + 9)).toEqual(['05:00,1,0,0', '06:00,1,0,0', '07:00,1,0,0', '08:00,1,0,0']);
    expect(ist.filter((l, i) => i >= 2 && !l.endsWith(zero(3))).map((l) => l.slice(0, 5))).toEqual(['05:00', '06:00', '07:00', '08:00']);
    // Without a window: Chatwoot's, the six days before today.
    const recent = await csvOk('/reports/conversation_traffic', 'conversation_traffic.csv');
    const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
    const days = Array.from({ length: 6 }, (_, i) => new Date((today - (6 - i) * DAY) * 1000).toISOString().slice(0, 10));
    expect(recent.slice(0, 3)).toEqual(['Timezone,UTC+00:00', `Start of the hour,${days.join(',')}`, `00:00,${zero(6)}`]);
  });

  it('when an agent downloads, or the window is bad, then 403 or 422 with the Error body', async () => {
    for (const path of [`/reports/agents?${window}`, `/reports/conversation_traffic?${window}`]) {
      const res = await download(path, s.x.token);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.body.errors).toBeDefined();
    }
    for (const path of [`/reports/teams?since=${T0}`, `/reports/labels?since=${T0}&until=${T0}`, `/reports/conversation_traffic?${window}&timezone_offset=99`]) {
      const res = await download(path);
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expect(res.body.errors).toBeDefined();
    }
  });
});
