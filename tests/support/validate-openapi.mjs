// Validates an OpenAPI document (JSON on stdin) with @seriousme/openapi-schema-validator, the
// official OpenAPI JSON Schemas. A separate process because the validator is ESM-only and
// jest runs the tests as CommonJS. Prints {valid, version, errors} as JSON.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const validator = new Validator();
const res = await validator.validate(document);
let refsResolve = true;
let refError = null;
if (res.valid) {
  try {
    validator.resolveRefs();
  } catch (err) {
    refsResolve = false;
    refError = String(err && err.message ? err.message : err);
  }
}
process.stdout.write(JSON.stringify({ valid: res.valid, version: validator.version, errors: res.errors ?? null, refsResolve, refError }));
