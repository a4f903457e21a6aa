import { parseRequestContext, requestContextSchema, signContext, verifyContext, CONTEXT_HEADER, SIGNATURE_HEADER, type RequestContext } from '../src';

const secret = 'unit-test-secret-0123456789';
const ctx: RequestContext = {
  requestId: 'req-1',
  accountId: 7,
  actor: { type: 'user', id: 3, name: 'Ann', email: 'ann@example.com' },
  role: 'administrator',
  features: { audit_logs: true },
  ip: '10.0.0.1',
  issuedAt: Date.now(),
};

describe('signed internal context', () => {
  it('when the headers are signed with the secret, then the context round-trips', () => {
    const headers = signContext(ctx, secret);
    expect(verifyContext(headers, secret)).toEqual(ctx);
  });

  it('when the payload is altered, then it is refused', () => {
    const headers = signContext(ctx, secret);
    const forged = Buffer.from(JSON.stringify({ ...ctx, role: 'administrator', accountId: 8 })).toString('base64url');
    expect(verifyContext({ ...headers, [CONTEXT_HEADER]: forged }, secret)).toBeNull();
  });

  it('when signed with another secret, then it is refused', () => {
    expect(verifyContext(signContext(ctx, 'another-secret-0123456789'), secret)).toBeNull();
  });

  it('when the signature is missing or not hex, then it is refused', () => {
    const headers = signContext(ctx, secret);
    expect(verifyContext({ [CONTEXT_HEADER]: headers[CONTEXT_HEADER] }, secret)).toBeNull();
    expect(verifyContext({ ...headers, [SIGNATURE_HEADER]: 'zz' }, secret)).toBeNull();
  });

  it('when the context is older than five minutes, then it is refused as a replay', () => {
    const headers = signContext({ ...ctx, issuedAt: Date.now() - 6 * 60 * 1000 }, secret);
    expect(verifyContext(headers, secret)).toBeNull();
  });
});

describe('parseRequestContext (the hand-written check of every signed context)', () => {
  const base = { ...ctx, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
  const odd: unknown[] = [undefined, null, 0, -1, 1.5, 2 ** 53, Number.NaN, Infinity, '', 'x', 'administrator', 'user', true, false, [], {}, ['a'], { a: true }, { a: 1 }, 'a'.repeat(129)];
  const cases: unknown[] = [base, ctx, null, [], 'x', 1, {}];
  for (const key of Object.keys(base) as Array<keyof typeof base>) {
    const { [key]: _gone, ...without } = base;
    cases.push(without);
    for (const v of odd) cases.push({ ...base, [key]: v });
  }
  for (const key of ['type', 'id', 'name', 'email']) {
    const { [key as 'type']: _gone, ...without } = base.actor;
    cases.push({ ...base, actor: without });
    for (const v of odd) cases.push({ ...base, actor: { ...base.actor, [key]: v } });
  }
  cases.push({ ...base, extra: 1, actor: { ...base.actor, extra: 2 } });
  cases.push({ ...base, features: { a: true, b: false } }, { ...base, features: { a: true, b: 'yes' } });
  cases.push(JSON.parse(`{"requestId":"r","accountId":1,"actor":{"type":"user","id":1},"role":null,"features":{"__proto__":true},"issuedAt":1}`));
  cases.push({ ...base, actor: { type: 'agent_bot', id: 'bot' }, role: null, accountId: null, ip: undefined, features: undefined });

  it.each(cases.map((c, i) => [i, c]))('case %i answers as requestContextSchema does', (_i, input) => {
    const r = requestContextSchema.safeParse(input);
    const mine = parseRequestContext(input);
    if (!r.success) expect(mine).toBeNull();
    else {
      expect(mine).toStrictEqual(r.data);
      expect(Object.keys(mine as object)).toEqual(Object.keys(r.data));
    }
  });
});
