// eslint-disable-next-line @typescript-eslint/no-require-imports
const report = require('../../../scripts/bench/report') as {
  evaluate: (r: object) => Array<{ id: string; value: number | null; met: boolean | null }>;
  markdown: (r: object, summary: unknown) => string;
};

/** A run with the small account's message create only, and the bare server's ceiling at `httpUs` microseconds a request. */
function run(httpUs: number | null, messageCpu: number): object {
  return {
    startedAt: '2026-11-29T00:00:00.000Z',
    machine: { cpu: 'test', cores: 2, memoryGb: 1, node: 'v20', postgres: '15', rabbitmq: '3' },
    settings: {},
    datasets: {},
    ceilings: httpUs === null ? {} : { http: { cpuMsPerRequest: { ceiling: 0.01, total: Math.round(httpUs / 10) / 100 }, cpuUsPerRequest: httpUs } },
    scenarios: [{ key: 'message_create', dataset: 'small', mode: 'sat', cpuMsPerRequest: { stack: messageCpu }, latency: {} }],
  };
}

/** The benchmark's page (scripts/bench/report.js) judges CPU targets against the host they were set on. */
describe('benchmark report: the host line', () => {
  it('on a host about twice as fast as the targets\' one, gives the CPU targets scaled to it and judges them', () => {
    const r = run(10, 3);
    const summary = report.evaluate(r);
    expect(summary.find((t) => t.id === 'message')).toMatchObject({ value: 3, met: true });
    const md = report.markdown(r, summary);
    expect(md).toContain('0.010 CPU ms a request, about 0.50x the');
    expect(md).toMatch(/Message create \(account API\) with its whole event fan-out ≤ 2\.00 \(3\.00: \*\*not met\*\*\)/);
    // Missed at its scaled bound, so it gets its why and what would meet it, though met as measured.
    expect(md).toContain('- **Message create (account API) with its whole event fan-out** (3.00 against ≤ 4, ≤ 2.00 scaled to this host)');
  });

  it('on a host like the targets\' one says nothing; on a slower one, that its figures read higher', () => {
    expect(report.markdown(run(20, 3), report.evaluate(run(20, 3)))).not.toContain('ceiling for');
    const md = report.markdown(run(50, 3), report.evaluate(run(50, 3)));
    expect(md).toContain('about 2.50x the');
    expect(md).toContain('its CPU figures read about that much higher');
    expect(md).not.toContain('Scaled by that ratio');
  });
});
