/**
 * Field-by-field type checks of an answer against a record SPEC lists ("Resources and their
 * fields"), written the way SPEC writes types: `number`, `integer`, `string`, `boolean`,
 * `object`, `array`, with `|null` when null is allowed. Shared by the SPEC tests (tests/e2e/<feature>/spec-<feature>.test.ts).
 */
export type SpecType = 'number' | 'integer' | 'string' | 'boolean' | 'object' | 'array';
export type SpecFieldType = SpecType | `${SpecType}|null`;

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

function matches(v: unknown, type: SpecType): boolean {
  switch (type) {
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
  }
}

/** Throws, naming the field, its expected type and the value, when `obj[field]` is not of `type`. */
export function expectType(obj: any, field: string, type: SpecFieldType): void {
  const nullable = type.endsWith('|null');
  const base = type.replace('|null', '') as SpecType;
  const v = obj?.[field];
  if ((nullable && v === null) || matches(v, base)) return;
  throw new Error(`${field} should be ${type}, got ${v === undefined ? 'nothing' : JSON.stringify(v)} in ${JSON.stringify(obj).slice(0, 400)}`);
}

/** Every field of `fields` present in `obj` with its SPEC type. */
export function expectFields(obj: any, fields: Record<string, SpecFieldType>): void {
  for (const [field, type] of Object.entries(fields)) expectType(obj, field, type);
}
