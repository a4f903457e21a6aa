import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startStack, PLATFORM_TOKEN, type Stack } from '../../support/stack';
import { typedClient } from '../../support/typed-client';
import { DOCUMENT_FILES } from '@parley/openapi';

const GENERATOR = path.join(__dirname, '../../support/generate-client.js');
const TYPES = path.join(__dirname, '../../support/api-types.ts');

/** openapi-typescript over the committed document, in its own process (its dependencies are ESM). */
function generateTypes(): string {
  const run = spawnSync(process.execPath, [GENERATOR, '--stdin'], { input: fs.readFileSync(DOCUMENT_FILES.json, 'utf8'), encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`generator failed: ${run.stderr}`);
  return run.stdout;
}

describe('the client generated from the OpenAPI document', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ only: [] });
  });
  afterAll(() => stack?.stop());

  it('when the document is turned into types, then they equal the committed tests/support/api-types.ts (else run pnpm gen:client)', async () => {
    const fresh = generateTypes();
    const committed = fs.readFileSync(TYPES, 'utf8');
    if (fresh !== committed) throw new Error('tests/support/api-types.ts is stale: run `pnpm gen:client` and commit it');
  });

  it('when the tests that use the typed client are typechecked against the generated types, then they compile', () => {
    // jest only transpiles; this is where a changed operation breaks the code that calls it.
    const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(__dirname, '../../tsconfig.typed-client.json')], { encoding: 'utf8', timeout: 170_000 });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 180_000);

  it('when an integrator bootstraps an account with the typed client, then the Platform API and the profile answer as typed', async () => {
    const platform = typedClient(stack.gatewayUrl, PLATFORM_TOKEN);
    const suffix = randomBytes(4).toString('hex');

    const account = await platform.POST('/platform/api/v1/accounts', { body: { name: `Typed ${suffix}` } });
    expect(account.response.status).toBe(200);
    const accountId = account.data!.id;

    const user = await platform.POST('/platform/api/v1/users', { body: { name: `Typed User ${suffix}`, email: `typed-${suffix}@example.com`, password: 'Typed-password-1!' } });
    expect(user.response.status).toBe(200);
    const userId = user.data!.id;

    const membership = await platform.POST('/platform/api/v1/accounts/{id}/account_users', { params: { path: { id: accountId } }, body: { user_id: userId, role: 'administrator' } });
    expect(membership.response.status).toBe(200);

    const token = await platform.POST('/platform/api/v1/users/{id}/token', { params: { path: { id: userId } } });
    expect(token.response.status).toBe(200);

    const me = await typedClient(stack.gatewayUrl, token.data!.access_token).GET('/api/v1/profile');
    expect(me.response.status).toBe(200);
    expect(me.data!.email).toBe(`typed-${suffix}@example.com`);
    expect(me.data!.accounts).toEqual([expect.objectContaining({ id: accountId, role: 'administrator' })]);
  });

  it('when the typed client sends a bad token, then the error comes back typed as the Error body', async () => {
    const res = await typedClient(stack.gatewayUrl, 'not-a-real-token').GET('/api/v1/profile');
    expect(res.response.status).toBe(401);
    expect(res.error).toMatchObject({ description: expect.any(String), errors: [expect.objectContaining({ code: 'invalid_token' })] });
  });
});
