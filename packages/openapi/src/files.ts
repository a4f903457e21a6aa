import path from 'node:path';

/** The committed artefacts, at the package's root (the same place from src/ and dist/). */
export const DOCUMENT_FILES = {
  json: path.join(__dirname, '..', 'openapi.json'),
  yaml: path.join(__dirname, '..', 'openapi.yaml'),
} as const;
