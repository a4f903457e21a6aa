import { Client, escapeLiteral as pgEscapeLiteral, types } from 'pg';
import { createPool, escapeLiteral, parseTimestamptz, pgTypes, type Pool } from '@parley/shared';
import { createTestDatabase, type TestDatabase } from '@parley/testkit';

/** pg's own timestamptz parser (postgres-date): the kernel's must give the same Date for every input. */
const pgParse = types.getTypeParser(1184, 'text') as (s: string) => Date | number | null;
const same = (s: string) => {
  const ours = parseTimestamptz(s);
  const theirs = pgParse(s);
  return { s, ours: ours instanceof Date ? ours.getTime() : ours, theirs: theirs instanceof Date ? theirs.getTime() : theirs };
};

describe('parseTimestamptz', () => {
  it('when given what Postgres prints (any fraction, any offset) or anything unusual, then it answers what pg`s parser answers', () => {
    const cases = [
      '2026-11-24 14:36:53+00',
      '2026-11-24 14:36:53.1+00',
      '2026-11-24 14:36:53.12+00',
      '2026-11-24 14:36:53.123+00',
      '2026-11-24 14:36:53.123456+00',
      '2026-11-24 14:36:53.999999-03',
      '2026-11-24 14:36:53.5+05:30',
      '2026-11-24 14:36:53+05:45:30',
      '1970-01-01 00:00:00+00',
      '1969-12-31 23:59:59.999+00',
      '0100-03-01 00:00:00+00',
      '0099-12-31 23:59:59+00',
      '0001-01-01 00:00:00+00',
      '0044-03-15 12:00:00+00 BC',
      '10000-01-01 00:00:00+00',
      'infinity',
      '-infinity',
      '2026-11-24 14:36:53.1234567+00',
      '2026-11-24 14:36:53.+00',
      '2026-11-24 14:36:53',
      '2026-11-24T14:36:53Z',
      '2026-11-24 14:36:53+0',
      '2026-11-24 14:36:53+00:3',
      '2026-11-24',
    ];
    for (const s of cases) {
      const r = same(s);
      expect(r.ours).toEqual(r.theirs);
    }
  });

  it('when given many generated timestamps, then every one reads as pg`s parser reads it', () => {
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (let k = 0; k < 20_000; k++) {
      const frac = rand(7);
      const zone = rand(4);
      const sign = rand(2) ? '+' : '-';
      const s =
        `${pad(100 + rand(9900), 4)}-${pad(1 + rand(12), 2)}-${pad(1 + rand(28), 2)} ${pad(rand(24), 2)}:${pad(rand(60), 2)}:${pad(rand(60), 2)}` +
        (frac ? `.${pad(rand(10 ** frac), frac)}` : '') +
        (zone === 0 ? '+00' : zone === 1 ? `${sign}${pad(rand(15), 2)}` : zone === 2 ? `${sign}${pad(rand(15), 2)}:${pad(rand(60), 2)}` : `${sign}${pad(rand(15), 2)}:${pad(rand(60), 2)}:${pad(rand(60), 2)}`);
      const r = same(s);
      if (r.ours !== r.theirs) expect(r).toEqual({ ...r, ours: r.theirs });
    }
  });
});

describe('createPool reading timestamptz', () => {
  let db: TestDatabase;
  let pool: Pool;
  let plain: Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, 'public', 1);
    plain = new Client({ connectionString: db.url });
    await plain.connect();
  });
  afterAll(async () => {
    await pool.end().catch(() => undefined);
    await plain.end().catch(() => undefined);
    await db.drop();
  });

  it('when the session is in any time zone, then the kernel`s pools read the same instants as pg`s default parser', async () => {
    const sql = `SELECT t, t + interval '123456 microseconds' AS f, t + interval '5 microseconds' AS g, 'infinity'::timestamptz AS i, '0044-03-15 12:00:00+00 BC'::timestamptz AS bc, NULL::timestamptz AS n
                   FROM generate_series('1899-12-31 23:00:00+00'::timestamptz, '2100-01-01'::timestamptz, interval '1733 days 7 hours 11 minutes 13.25 seconds') AS t`;
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam', 'Africa/Monrovia']) {
      const client = await pool.connect();
      try {
        await client.query(`SET TimeZone = '${zone}'`);
        await plain.query(`SET TimeZone = '${zone}'`);
        const [ours, theirs] = [await client.query(sql), await plain.query(sql)];
        expect(ours.rows.length).toBeGreaterThan(40);
        expect(ours.rows).toEqual(theirs.rows);
        expect(ours.rows[0].t).toBeInstanceOf(Date);
        expect((pool as unknown as { options: { types: unknown } }).options.types).toBe(pgTypes);
      } finally {
        await client.query('RESET TimeZone');
        client.release();
      }
    }
  });

  it('when a string is made a literal by the kernel`s escapeLiteral, then it is pg`s text and Postgres reads back the same string', async () => {
    const envelope = JSON.stringify({ id: 'e1', data: { content: "it's \\ a \"test\" \u00e9\u{1F600}", n: 1 } });
    const cases = ['', 'plain', "it's", "''", '\\', "a'b\\c", "\\'\\''", ' E', 'ünïcödé 😀', 'line\nbreak\ttab', envelope];
    const chars = ['a', "'", '\\', '"', ' ', '\n', '😀', 'x', 'é'];
    for (let i = 0; i < 200; i++) cases.push(Array.from({ length: i % 17 }, (_, j) => chars[(i * 7 + j * 3) % chars.length]).join(''));
    for (const s of cases) expect(escapeLiteral(s)).toBe(pgEscapeLiteral(s));
    const { rows } = await plain.query(`SELECT ${cases.map((s, i) => `${escapeLiteral(s)} AS c${i}`).join(', ')}`);
    expect(Object.values(rows[0] as Record<string, string>)).toEqual(cases);
  });
});
