import { createPool, installPgPatches, type Pool } from '@parley/shared';
import { createTestDatabase, type TestDatabase } from '@parley/testkit';

interface Field {
  name: string;
  dataTypeID: number;
  format?: string;
}
interface PgResult {
  addFields(fields: Field[]): void;
  parseRow(raw: Array<string | null>): Record<string, unknown>;
}
type PgResultClass = { new (rowMode?: string, types?: unknown): PgResult; prototype: PgResult };

type Normalize = (config: unknown, values?: unknown, callback?: unknown) => Record<string, unknown>;

/** pg's own modules, as loaded by a process that never installed the kernel's patches. */
function pristine(): { Result: PgResultClass; normalize: Normalize } {
  let out: { Result: PgResultClass; normalize: Normalize } | undefined;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    out = {
      Result: require('pg/lib/result') as PgResultClass,
      normalize: (require('pg/lib/utils') as { normalizeQueryConfig: Normalize }).normalizeQueryConfig,
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  return out as { Result: PgResultClass; normalize: Normalize };
}
const pristineResult = () => pristine().Result;

// Columns whose names an object treats specially: `__proto__` (an accessor of Object.prototype),
// an integer-like name (enumerated first), a name of Object.prototype, and a repeated one.
const FIELDS: Field[] = [
  { name: '__proto__', dataTypeID: 23 },
  { name: 'b', dataTypeID: 25 },
  { name: '1', dataTypeID: 23 },
  { name: 'constructor', dataTypeID: 25 },
  { name: 'at', dataTypeID: 1184 },
  { name: 'b', dataTypeID: 23 },
  { name: 'flag', dataTypeID: 16 },
];
const RAW = ['1', 'two', '3', 'x', '2026-12-01 01:02:03.456+00', '4', 't', ...Array.from({ length: 33 }, (_, i) => String(i))];

describe('pg patches (pg-patches.ts)', () => {
  it('when installed, then pg`s results build their row template with the kernel`s addFields, and rows come out as pg`s own builds them', () => {
    expect(installPgPatches()).toEqual({ rows: true, configs: true });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Patched = require('pg/lib/result') as PgResultClass;
    const Pristine = pristineResult();
    // Installed only over the pg code it was written against (PG_SOURCES): another pg fails above.
    expect(String(Patched.prototype.addFields)).not.toBe(String(Pristine.prototype.addFields));
    const wide: Field[] = Array.from({ length: 40 }, (_, i) => ({ name: `column_${i}`, dataTypeID: i % 2 ? 25 : 23 }));
    for (const fields of [FIELDS, FIELDS.slice(1, 3), [], wide]) {
      const raw = RAW.slice(0, fields.length);
      const ours = new Patched('object', undefined);
      const theirs = new Pristine('object', undefined);
      ours.addFields(fields);
      theirs.addFields(fields);
      const [a, b] = [ours.parseRow(raw), theirs.parseRow(raw)];
      expect(Object.keys(a)).toEqual(Object.keys(b));
      expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
      expect(Object.getOwnPropertyDescriptors(a)).toEqual(Object.getOwnPropertyDescriptors(b));
      // Each row is a copy of the template: filling one leaves the next untouched.
      expect(ours.parseRow(raw.map(() => null))).toEqual(theirs.parseRow(raw.map(() => null)));
    }
    // A template is built once per list of column names, and the same one serves every later result with them.
    const [first, second, other] = [new Patched('object', undefined), new Patched('object', undefined), new Patched('object', undefined)];
    first.addFields(wide);
    second.addFields(wide.map((f) => ({ ...f })));
    other.addFields(wide.slice(1));
    const templateOf = (r: PgResult) => (r as unknown as { _prebuiltEmptyResultObject: object })._prebuiltEmptyResultObject;
    expect(templateOf(second)).toBe(templateOf(first));
    expect(templateOf(other)).not.toBe(templateOf(first));
    const row = (() => {
      const r = new Patched('object', undefined);
      r.addFields(FIELDS);
      return r.parseRow(RAW.slice(0, FIELDS.length));
    })();
    // `__proto__` is the column's own value; the row keeps Object.prototype.
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe(1);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toMatchObject({ 1: 3, b: 4, constructor: 'x', flag: true });
  });

  it('when a query config is copied, then the Query gets what pg`s own copy gives it, and the caller`s object is left as it was', () => {
    expect(installPgPatches().configs).toBe(true);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ours = (require('pg/lib/utils') as { normalizeQueryConfig: Normalize }).normalizeQueryConfig;
    const theirs = pristine().normalize;
    expect(String(ours)).not.toBe(String(theirs));
    const cb = () => undefined;
    class Submittable {
      text = 'SELECT 1';
      get name() {
        return 'from a getter';
      }
    }
    const cases: Array<[unknown, unknown?, unknown?]> = [
      [{ name: 'p_1', text: 'SELECT $1', values: [1] }],
      [{ text: 'SELECT $1', rowMode: 'array' }, [2]],
      [{ text: 'SELECT 1' }, cb],
      [{ text: 'SELECT $1', values: [3] }, [4], cb],
      ['SELECT 1', [5]],
      [new Submittable()],
      [Object.freeze({ text: 'SELECT $1' }), [6]],
    ];
    for (const [config, values, callback] of cases) {
      const before = typeof config === 'object' ? { ...(config as object) } : config;
      const [a, b] = [ours(config, values, callback), theirs(config, values, callback)];
      expect(a).toEqual(b);
      for (const k of ['text', 'values', 'name', 'rowMode', 'callback', 'types', 'portal']) expect(a[k]).toBe(b[k]);
      expect(Object.getPrototypeOf(a)).toBe(Object.getPrototypeOf(b));
      expect(a).not.toBe(config);
      if (typeof config === 'object') expect({ ...(config as object) }).toEqual(before);
    }
  });

  it('when a process makes its first pool, then the patch is in place for it (and no sooner: a process without pools keeps pg`s own)', async () => {
    const pg = pristine();
    let before: unknown[] = [];
    let after: unknown[] = [];
    let pool: Pool | undefined;
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports */
      const R = require('pg/lib/result') as PgResultClass;
      const utils = require('pg/lib/utils') as { normalizeQueryConfig: Normalize };
      before = [R.prototype.addFields, utils.normalizeQueryConfig];
      const shared = require('@parley/shared') as typeof import('@parley/shared');
      /* eslint-enable @typescript-eslint/no-require-imports */
      pool = shared.createPool('postgres://postgres@127.0.0.1:5432/postgres', 'public', 1);
      after = [R.prototype.addFields, utils.normalizeQueryConfig];
    });
    await pool?.end();
    expect(before.map(String)).toEqual([String(pg.Result.prototype.addFields), String(pg.normalize)]);
    expect(String(after[0])).not.toBe(String(pg.Result.prototype.addFields));
    expect(String(after[1])).not.toBe(String(pg.normalize));
  });

  describe('through the kernel`s pools', () => {
    let db: TestDatabase;
    let pool: Pool;
    beforeAll(async () => {
      db = await createTestDatabase();
      pool = createPool(db.url, 'public', 1);
    });
    afterAll(async () => {
      await pool.end().catch(() => undefined);
      await db.drop();
    });

    it('when a query names columns an object treats specially, then its rows hold every column`s value, with the pool`s own type parsers', async () => {
      const { rows, fields } = await pool.query(
        `SELECT 1 AS "__proto__", 'two' AS b, 3 AS "1", 'x' AS "constructor", '2026-12-01 01:02:03.456+00'::timestamptz AS at, 4 AS b, true AS flag
          UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL`,
      );
      expect(fields.map((f) => f.name)).toEqual(['__proto__', 'b', '1', 'constructor', 'at', 'b', 'flag']);
      expect(rows).toHaveLength(2);
      const [first, second] = rows as Array<Record<string, unknown>>;
      expect(Object.keys(first as object)).toEqual(['1', '__proto__', 'b', 'constructor', 'at', 'flag']);
      expect(Object.getOwnPropertyDescriptor(first, '__proto__')?.value).toBe(1);
      expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
      expect(first).toMatchObject({ 1: 3, b: 4, constructor: 'x', flag: true, at: new Date('2026-12-01T01:02:03.456Z') });
      expect(Object.values(second as object).every((v) => v === null)).toBe(true);
    });
  });
});
