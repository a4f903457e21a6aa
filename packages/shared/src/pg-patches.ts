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
type ResultClass = { new (rowMode?: string, types?: unknown): ResultInternals; prototype: ResultInternals };
type NormalizeQueryConfig = (config: unknown, values?: unknown, callback?: unknown) => Record<string, unknown>;
interface PgUtils {
  normalizeQueryConfig: NormalizeQueryConfig;
}

/** The template a result's rows are copied from: its columns in order, each null, on a plain object. */
function template(fieldDescriptions: FieldDescription[]): Record<string, null> {
  const row: Record<string, null> = {};
  for (const { name } of fieldDescriptions) {
    // A column named __proto__ is a property of its own, as on pg's null-prototype object.
    if (name === '__proto__') Object.defineProperty(row, name, { value: null, writable: true, enumerable: true, configurable: true });
    else row[name] = null;
  }
  return row;
}

/**
 * pg builds each result's row template (`_prebuiltEmptyResultObject`, which `parseRow` copies for
 * every row) on an `Object.create(null)` object and then spreads it. V8 keeps a null-prototype
 * object with that many keys as a dictionary, and spreading a dictionary takes its slow path:
 * 15 µs for a 35-column result against 2.4 µs for the same template built on a plain object
 * (pg 8.23.1, Node 20), on every query of every service, before any row is read. This one builds
 * the same template (the same keys in the same order, `__proto__` as an own property, rows with
 * `Object.prototype` as before) on a plain object, and the same parsers.
 */
function addFields(this: ResultInternals, fieldDescriptions: FieldDescription[]): void {
  this.fields = fieldDescriptions;
  if (fieldDescriptions.length) this._parsers = new Array(fieldDescriptions.length);
  const parsers = this._types ?? types;
  for (let i = 0; i < fieldDescriptions.length; i++) {
    const desc = fieldDescriptions[i] as FieldDescription;
    (this._parsers as unknown[])[i] = parsers.getTypeParser(desc.dataTypeID, (desc.format || 'text') as 'text');
  }
  this._prebuiltEmptyResultObject = template(fieldDescriptions);
}

/**
 * pg copies every query's config object before reading it (so that adding `values` or a callback
 * does not change the caller's object) with `Object.defineProperties(Object.create(proto),
 * Object.getOwnPropertyDescriptors(config))`: 2.6 µs a query, against 0.04 for a spread. A config
 * that is a plain object (every prepared statement of ours: `{name, text, values}`) is copied by a
 * spread, which gives the `Query` the same fields; anything else (a class instance, a submittable)
 * still goes through pg's own copy.
 */
function normalizeWith(pgNormalize: NormalizeQueryConfig): NormalizeQueryConfig {
  return function normalizeQueryConfig(config, values, callback) {
    if (typeof config !== 'object' || config === null || Object.getPrototypeOf(config) !== Object.prototype) return pgNormalize(config, values, callback);
    const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
    if (values) {
      if (typeof values === 'function') copy['callback'] = values;
      else copy['values'] = values;
    }
    if (callback) copy['callback'] = callback;
    return copy;
  };
}

let installed: { rows: boolean; configs: boolean } | null = null;

/**
 * Replaces two slow paths of pg (above) with ones that give the same results: `Result`'s
 * `addFields` and `utils.normalizeQueryConfig`. Installed once per process, when it makes its
 * first pool (db.ts), and each only if pg still has the shape it was written for (otherwise pg's
 * own stays, and the kernel's test says so).
 */
export function installPgPatches(): { rows: boolean; configs: boolean } {
  if (installed) return installed;
  installed = { rows: false, configs: false };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Result = require('pg/lib/result') as ResultClass;
    const probe = new Result('object', undefined);
    if (typeof Result.prototype.addFields === 'function' && '_prebuiltEmptyResultObject' in probe && String(Result.prototype.parseRow).includes('_prebuiltEmptyResultObject')) {
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
    if (typeof utils.normalizeQueryConfig === 'function' && querySource.includes('utils.normalizeQueryConfig(')) {
      utils.normalizeQueryConfig = normalizeWith(utils.normalizeQueryConfig);
      installed.configs = true;
    }
  } catch {
    // Another pg: its own copy stays.
  }
  return installed;
}
