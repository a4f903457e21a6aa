// eslint-disable-next-line @typescript-eslint/no-require-imports
const report = require('../../../scripts/bench/report') as {
  evaluate: (r: object) => Array<{ id: string; value: number | null; met: boolean | null }>;
  markdown: (r: object, summary: unknown) => string;
  ruleStagesText: (stages: object) => string;
};

const bare = (us: number) => ({ cpuMsPerRequest: { ceiling: 0.01, total: Math.round(us / 10) / 100 }, cpuUsPerRequest: us });

/**
 * A run with the small account's message create only, and the bare server's ceiling at `httpUs`
 * microseconds a request (and at `afterUs` measured again after the small account's scenarios).
 */
function run(httpUs: number | null, messageCpu: number, afterUs?: number): object {
  const ceilings: Record<string, object> = httpUs === null ? {} : { http: bare(httpUs) };
  if (afterUs !== undefined) ceilings['httpAfter'] = bare(afterUs);
  return {
    startedAt: '2026-11-29T00:00:00.000Z',
    machine: { cpu: 'test', cores: 2, memoryGb: 1, node: 'v20', postgres: '15', rabbitmq: '3' },
    settings: {},
    datasets: {},
    ceilings,
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

  it('judges the host by the mean of the bare server before and after the scenarios, and says when the two differ', () => {
    // 10 and 30 µs: a host of the targets' speed on the mean (20), but one whose speed moved threefold.
    const moved = report.markdown(run(10, 3, 30), report.evaluate(run(10, 3, 30)));
    expect(moved).toContain('The host\'s speed moved during the run: the bare server cost 0.010 CPU ms a request before');
    expect(moved).toContain('0.030 after them (3.00x)');
    expect(moved).not.toContain('Scaled by that ratio');
    // 10 and 12 µs: a fast host that held its speed: scaled targets by the mean, no word of drift.
    const held = report.markdown(run(10, 3, 12), report.evaluate(run(10, 3, 12)));
    expect(held).not.toContain('speed moved during the run');
    expect(held).toContain('0.011 CPU ms a request (the mean of the two), about 0.55x the');
    expect(held).toContain('The same, after the small account\'s scenarios');
    // Only the measurement after the scenarios (the one before failed): judged by it, and said so.
    const after = report.markdown(run(null, 3, 50), report.evaluate(run(null, 3, 50)));
    expect(after).toContain('0.050 CPU ms a request (measured after the small account\'s scenarios only), about 2.50x the');
  });
});

/** The rule effect's line says where its latency went (run.js ruleStages), when the run read it. */
describe('benchmark report: the rule effect stages', () => {
  const withRule = (stages?: object) => ({
    ...run(20, 3),
    rule: { offeredRate: 200, messages: 2000, latency: { p50: 100, p95: 150, p99: 190, max: 200 }, missing: 0, failures: 0, cpuMsPerRequest: { stack: 7.5 }, ...(stages ? { stages } : {}) },
  });
  const s = (p50: number, p95: number, p99: number) => ({ p50, p95, p99, max: p99 });

  it('gives each stage as p50/p95/p99 ms after the message transaction began, in the order of the way', () => {
    const r = withRule({ messages: 2000, answered: s(10, 20, 30), published: s(25.4, 60, 90), rules: s(50, 90, 140), command: s(70, 120, 180), seen: s(110, 170, 215) });
    const md = report.markdown(r, report.evaluate(r));
    expect(md).toContain(
      "Where it went, ms after each message's transaction began (p50/p95/p99): answered 10/20/30, claimed by the relay 25/60/90, rules transaction 50/90/140, command transaction 70/120/180, label seen 110/170/215.",
    );
    expect(report.ruleStagesText({ messages: 1, answered: s(1, 2, 3), rules: null })).toBe('answered 1/2/3');
  });

  it('says nothing of stages a run did not read, failed to, or found no rows for', () => {
    const none = { messages: 0, answered: null, published: null, rules: null, command: null, seen: null };
    for (const r of [withRule(), withRule({ error: 'relation "automation.rule_runs" does not exist' }), withRule(none)]) {
      const md = report.markdown(r, report.evaluate(r));
      expect(md).toContain('- Rule effect at 200 messages/s offered');
      expect(md).not.toContain('Where it went');
    }
  });
});
