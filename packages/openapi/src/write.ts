import fs from 'node:fs';
import path from 'node:path';
import { buildDocument, documentTexts } from './document';
import { DOCUMENT_FILES } from './files';

/**
 * `pnpm build` runs this after compiling: builds the API document from every listed service's
 * compiled code and writes openapi.json and openapi.yaml (only when they change). The files are
 * committed: an API change shows up in review as their diff; the gateway serves them.
 */
const root = path.resolve(__dirname, '..', '..', '..');
const doc = buildDocument((service) => require(path.join(root, 'services', service)));
const texts = documentTexts(doc);
for (const kind of ['json', 'yaml'] as const) {
  const file = DOCUMENT_FILES[kind];
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (old !== texts[kind]) {
    fs.writeFileSync(file, texts[kind]);
    console.log(`wrote ${path.relative(process.cwd(), file)}`);
  }
}
