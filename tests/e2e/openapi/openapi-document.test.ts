import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { OpenApiDocument, OpenApiOperation } from '@parley/shared';
import { DOCUMENT_FILES } from '@parley/openapi';
import { startStack, type Stack } from '../../support/stack';
import { SPEC_OPERATIONS, slotPath } from '../../support/spec-operations';

/** Runs the standard OpenAPI validator (official 3.x JSON Schemas) in its own process (it is ESM-only). */
function validateOpenApi(doc: unknown): { valid: boolean; version: string; errors: unknown; refsResolve: boolean; refError: string | null } {
  const run = spawnSync(process.execPath, [path.join(__dirname, '../../support/validate-openapi.mjs')], { input: JSON.stringify(doc), encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

function operations(doc: OpenApiDocument): Array<{ method: string; path: string; op: OpenApiOperation }> {
  return Object.entries(doc.paths).flatMap(([p, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ method, path: p, op: op as OpenApiOperation })));
}

describe('the OpenAPI document the gateway serves', () => {
  let stack: Stack;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    // Only the gateway: the document is built from code, no service needs to run.
    stack = await startStack({ only: [] });
    const res = await fetch(`${stack.gatewayUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    doc = (await res.json()) as OpenApiDocument;
  });
  afterAll(() => stack?.stop());

  it('when /openapi.json is fetched without a token, then it is OpenAPI 3.1.0 version 1.1.0 and passes the standard validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.1.0');
    const result = validateOpenApi(doc);
    expect(result.errors).toBeFalsy();
    expect(result).toMatchObject({ valid: true, version: '3.1', refsResolve: true });
  });

  it('when /openapi.yaml is fetched, then it is the same document in YAML', async () => {
    const res = await fetch(`${stack.gatewayUrl}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('yaml');
    expect(parseYaml(await res.text())).toEqual(doc);
  });

  it('when the document is read, then the three api_access_token schemes are declared and every operation names its schemes', () => {
    for (const name of ['userApiKey', 'agentBotApiKey', 'platformAppApiKey'] as const) {
      expect(doc.components.securitySchemes[name]).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'api_access_token' }));
    }
    for (const { method, path: p, op } of operations(doc)) {
      expect({ route: `${method} ${p}`, security: Array.isArray(op.security) }).toEqual({ route: `${method} ${p}`, security: true });
      if (p.startsWith('/public/')) expect(op.security).toEqual([]);
      if (p.startsWith('/platform/')) expect(op.security).toEqual([{ platformAppApiKey: [] }]);
    }
  });

  it('when any operation answers an error, then the answer is SPEC\'s Error body, referenced from the components', () => {
    expect(doc.components.schemas['Error']).toMatchObject({ required: ['description', 'errors'] });
    let errorAnswers = 0;
    for (const { method, path: p, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        errorAnswers++;
        const ref = response['$ref'] as string | undefined;
        expect({ at: `${method} ${p} ${status}`, ref: ref?.startsWith('#/components/responses/') }).toEqual({ at: `${method} ${p} ${status}`, ref: true });
        const named = doc.components.responses[(ref as string).split('/').pop() as string] as { content: Record<string, { schema: unknown; example: unknown }> };
        expect(named.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
        expect(named.content['application/json']?.example).toMatchObject({ description: expect.any(String), errors: [expect.objectContaining({ code: expect.any(String) })] });
      }
    }
    if (operations(doc).length > 0) expect(errorAnswers).toBeGreaterThan(0);
  });

  it('when a path has parameters, then each one is declared as a required path parameter', () => {
    for (const { method, path: p, op } of operations(doc)) {
      const inTemplate = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((x) => x['in'] === 'path').map((x) => x['name']);
      expect({ route: `${method} ${p}`, params: declared }).toEqual({ route: `${method} ${p}`, params: inTemplate });
    }
  });

  it('when operations are listed, then operation ids are unique and every operation has a summary and a tag', () => {
    const ops = operations(doc);
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { op } of ops) {
      expect(op.summary.length).toBeGreaterThan(0);
      expect(op.tags.length).toBeGreaterThan(0);
      expect(doc.tags.map((t) => t.name)).toEqual(expect.arrayContaining(op.tags));
    }
  });

  // SPEC "Endpoints": these 15 must be in the document with SPEC's method and path (parameter
  // names may differ). Fails, naming the missing ones, until every service documents its routes.
  it('when SPEC\'s 15 operations are looked up, then each is documented, with the credential SPEC names', () => {
    const bySlot = new Map(operations(doc).map((o) => [`${o.method} ${slotPath(o.path)}`, o.op]));
    const find = (s: (typeof SPEC_OPERATIONS)[number]) => bySlot.get(`${s.method} ${slotPath(s.path)}`);
    const missing = SPEC_OPERATIONS.filter((s) => !find(s)).map((s) => `#${s.n} ${s.method.toUpperCase()} ${s.path}`);
    expect(missing).toEqual([]);
    for (const s of SPEC_OPERATIONS) {
      const schemes = (find(s) as OpenApiOperation).security.flatMap((x) => Object.keys(x));
      if (s.security.length === 0) expect({ op: s.n, schemes }).toEqual({ op: s.n, schemes: [] });
      else expect({ op: s.n, schemes }).toEqual({ op: s.n, schemes: expect.arrayContaining(s.security) });
    }
  });

  it('when SPEC\'s 15 operations are read, then each carries SPEC\'s name as its summary and its number, so a reader finds it by that name', () => {
    const bySlot = new Map(operations(doc).map((o) => [`${o.method} ${slotPath(o.path)}`, o]));
    for (const s of SPEC_OPERATIONS) {
      const found = bySlot.get(`${s.method} ${slotPath(s.path)}`) as { path: string; op: OpenApiOperation };
      expect({ n: s.n, summary: found.op.summary, x: found.op['x-spec-operation'] }).toEqual({ n: s.n, summary: s.title, x: s.n });
      expect(found.op.description).toContain(`SPEC operation ${s.n}: ${s.title}`);
      // Where the document names a parameter differently, the description gives SPEC's spelling.
      if (found.path !== s.path) expect(found.op.description).toContain(s.path);
    }
    // Only those 15 are numbered.
    expect(operations(doc).filter((o) => o.op['x-spec-operation'] !== undefined)).toHaveLength(SPEC_OPERATIONS.length);
    // Operation 3's portal is named by slug: `{portal_slug}` here, SPEC's `{id}` (the nested article routes have their own `{id}`).
    const op3 = bySlot.get(`post ${slotPath('/api/v1/accounts/{account_id}/portals/{id}/articles')}`) as { path: string; op: OpenApiOperation };
    expect(op3.path).toBe('/api/v1/accounts/{account_id}/portals/{portal_slug}/articles');
    expect(op3.op.parameters?.find((p) => p['name'] === 'portal_slug')).toMatchObject({ in: 'path', required: true, schema: { type: 'string' } });
  });

  it('when the built gateway serves the document in a process of its own, then it answers with the committed file and loads no other service', () => {
    // The compiled gateway (pnpm build), as deployed: its docs router alone, over a real socket.
    const root = path.resolve(__dirname, '../../..');
    const script = `
      const express = require('express');
      const { docsRouter } = require(${JSON.stringify(path.join(root, 'services/gateway/dist/docs'))});
      const app = express().use(docsRouter());
      const server = app.listen(0, async () => {
        const res = await fetch('http://127.0.0.1:' + server.address().port + '/openapi.json');
        const text = await res.text();
        const services = Object.keys(require.cache).map((f) => (f.match(/[\\/]services[\\/]([^\\/]+)[\\/]/) || [])[1]).filter(Boolean);
        console.log(JSON.stringify({ status: res.status, text, services: [...new Set(services)] }));
        server.close();
      });`;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: path.join(root, 'services/gateway'), encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { status: number; text: string; services: string[] };
    expect(out.status).toBe(200);
    expect(out.text).toBe(fs.readFileSync(DOCUMENT_FILES.json, 'utf8'));
    expect(JSON.parse(out.text)).toEqual(doc);
    expect(out.services).toEqual(['gateway']);
  });
});

