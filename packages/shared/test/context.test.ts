import { signContext, verifyContext, CONTEXT_HEADER, SIGNATURE_HEADER, type RequestContext } from '../src';

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
