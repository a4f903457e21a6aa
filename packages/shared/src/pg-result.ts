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

let installed: boolean | null = null;

/**
 * pg builds each result's row template (`_prebuiltEmptyResultObject`, which `parseRow` copies for
 * every row) on an `Object.create(null)` object and then spreads it. V8 keeps a null-prototype
 * object with that many keys as a dictionary, and spreading a dictionary takes its slow path:
 * 15 µs for a 35-column result against 1.1 µs for the same template built on a plain object
 * (pg 8.23.1, Node 20), on every query of every service, before any row is read. This replaces
 * `Result.prototype.addFields` with one that builds the same template (the same keys in the same
 * order, `__proto__` as an own property, rows with `Object.prototype` as before) on a plain
 * object, and the same parsers. Installed once per process, and only if pg's `Result` still has
 * the shape it was written for (otherwise pg's own stays, and the kernel's test says so).
 */
export function installResultTemplatePatch(): boolean {
  if (installed !== null) return installed;
  installed = false;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Result = require('pg/lib/result') as ResultClass;
    const probe = new Result('object', undefined);
    if (typeof Result.prototype.addFields !== 'function' || !('_prebuiltEmptyResultObject' in probe) || !String(Result.prototype.parseRow).includes('_prebuiltEmptyResultObject')) return false;
    Result.prototype.addFields = function addFields(this: ResultInternals, fieldDescriptions: FieldDescription[]): void {
      this.fields = fieldDescriptions;
      if (fieldDescriptions.length) this._parsers = new Array(fieldDescriptions.length);
      const parsers = this._types ?? types;
      for (let i = 0; i < fieldDescriptions.length; i++) {
        const desc = fieldDescriptions[i] as FieldDescription;
        (this._parsers as unknown[])[i] = parsers.getTypeParser(desc.dataTypeID, (desc.format || 'text') as 'text');
      }
      this._prebuiltEmptyResultObject = template(fieldDescriptions);
    };
    installed = true;
  } catch {
    // Another pg: its own addFields stays.
  }
  return installed;
}
