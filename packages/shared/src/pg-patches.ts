import { createHash } from 'node:crypto';
import { types } from 'pg';

/** What pg's `Result` keeps per result (pg/lib/result.js), the part `addFields` writes. */
interface FieldDescription {
  name: string;
  dataTypeID: number;
  format?: string;
}
interface ResultInternals {
  fields: FieldDescription[];
  _parsers: unknown[] | undefined;
  _types?: { getTypeParser(oid: number, format: string): unknown };
  _prebuiltEmptyResultObject: Record<string, null> | null;
  addFields(fieldDescriptions: FieldDescription[]): void;
  parseRow(rowData: unknown[]): Record<string, unknown>;
}
type ResultClass = { prototype: ResultInternals };
type NormalizeQueryConfig = (config: unknown, values?: unknown, callback?: unknown) => Record<string, unknown>;
interface PgUtils {
  normalizeQueryConfig: NormalizeQueryConfig;
}

/** Row templates by their columns' names (NUL-joined: no Postgres name holds a NUL), oldest first. */
const templates = new Map<string, Record<string, null>>();
/** Distinct column lists kept: a service has a few hundred statements. */
const MAX_TEMPLATES = 2000;

/**
 * The template a result's rows are copied from: its columns in order, each null. Built as pg builds
 * it (keys on a null-prototype object, then a spread: the same keys in the same order, `__proto__`
 * an own property, a fast-properties object whose copies are fast), once per list of names, and the
 * same object handed to every later result with those names (nothing writes to it: `parseRow` copies it).
 */
function templateOf(fieldDescriptions: FieldDescription[]): Record<string, null> {
  let key = '';
  for (let i = 0; i < fieldDescriptions.length; i++) key += `${(fieldDescriptions[i] as FieldDescription).name}\u0000`;
  let found = templates.get(key);
  if (found === undefined) {
    const row = Object.create(null) as Record<string, null>;
    for (const { name } of fieldDescriptions) row[name] = null;
    found = { ...row };
    if (templates.size >= MAX_TEMPLATES) templates.delete(templates.keys().next().value as string);
    templates.set(key, found);
  }
  return found;
}

/**
 * pg builds each result's row template (`_prebuiltEmptyResultObject`, which `parseRow` copies for
 * every row) on an `Object.create(null)` object and then spreads it. V8 keeps a null-prototype
 * object with that many keys as a dictionary, and spreading a dictionary takes its slow path:
 * 16 µs for a 35-column result (pg 8.23.1, Node 20), on every query of every service, before any
 * row is read. This one reads the template built the same way for the same columns before
 * (`templateOf`: 2.5 µs for 35 columns, the rows' copies as fast as pg's) and sets the same parsers.
 */
function addFields(this: ResultInternals, fieldDescriptions: FieldDescription[]): void {
  this.fields = fieldDescriptions;
  if (fieldDescriptions.length) this._parsers = new Array(fieldDescriptions.length);
  const parsers = this._types || types;
  for (let i = 0; i < fieldDescriptions.length; i++) {
    const desc = fieldDescriptions[i] as FieldDescription;
    (this._parsers as unknown[])[i] = parsers.getTypeParser(desc.dataTypeID, (desc.format || 'text') as 'text');
  }
  this._prebuiltEmptyResultObject = templateOf(fieldDescriptions);
}

/**
 * pg copies every query's config object before reading it (so that adding `values` or a callback
 * does not change the caller's object) with `Object.defineProperties(Object.create(proto),
 * Object.getOwnPropertyDescriptors(config))`: 2.6 µs a query, against 0.04 for a spread. A config
 * that is an extensible plain object (every statement of ours: `{name, text, values}` literals) is
 * copied by a spread, which gives the `Query` the same fields (a getter's value is read once, at the
 * copy, and a non-enumerable property is not copied: pg's API has neither); anything else (a class
 * instance, a frozen object, a string) still goes through pg's own copy.
 */
function normalizeWith(pgNormalize: NormalizeQueryConfig): NormalizeQueryConfig {
  return function normalizeQueryConfig(config, values, callback) {
    if (typeof config !== 'object' || config === null || Object.getPrototypeOf(config) !== Object.prototype || !Object.isExtensible(config)) return pgNormalize(config, values, callback);
    const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
    if (values) {
      if (typeof values === 'function') copy['callback'] = values;
      else copy['values'] = values;
    }
    if (callback) copy['callback'] = callback;
    return copy;
  };
}

/**
 * The code each replacement was written against (pg 8.23.1): a hash of the function's source.
 * Another pg keeps its own functions until someone has read its code again (the kernel's test
 * fails meanwhile, saying so).
 */
const PG_SOURCES = { addFields: 'b85c0e5db5c85c53', parseRow: '0afa63022d75b52b', normalizeQueryConfig: 'a973508ad553f81f' };
const sourceHash = (f: unknown): string => createHash('sha256').update(String(f)).digest('hex').slice(0, 16);

let installed: { rows: boolean; configs: boolean } | null = null;

/**
 * Replaces two slow paths of pg (above) with ones that give the same results: `Result`'s
 * `addFields` and `utils.normalizeQueryConfig`. Installed once per process, when it makes its
 * first pool (db.ts), and each only if pg's own is still the code it was written against
 * (`PG_SOURCES`; otherwise pg's stays, and the kernel's test says so).
 */
export function installPgPatches(): { rows: boolean; configs: boolean } {
  if (installed) return installed;
  installed = { rows: false, configs: false };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Result = require('pg/lib/result') as ResultClass;
    if (sourceHash(Result.prototype.addFields) === PG_SOURCES.addFields && sourceHash(Result.prototype.parseRow) === PG_SOURCES.parseRow) {
      Result.prototype.addFields = addFields;
      installed.rows = true;
    }
  } catch {
    // Another pg: its own addFields stays.
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const utils = require('pg/lib/utils') as PgUtils;
    // pg's Query reads it through the module (`utils.normalizeQueryConfig(...)`) at each query.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const querySource = String(require('pg/lib/query'));
    if (sourceHash(utils.normalizeQueryConfig) === PG_SOURCES.normalizeQueryConfig && querySource.includes('utils.normalizeQueryConfig(')) {
      utils.normalizeQueryConfig = normalizeWith(utils.normalizeQueryConfig);
      installed.configs = true;
    }
  } catch {
    // Another pg: its own copy stays.
  }
  return installed;
}
