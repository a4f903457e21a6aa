import { retryDelayMs } from '../src/webhooks/sender';
import { checkTargetUrl, guardedLookup, isPrivateAddress } from '../src/webhooks/url-guard';
import { signature } from '../src/webhooks/signing';
import { postJson } from '../src/webhooks/http-post';
import { startReceiver } from './receiver';

describe('webhook guards and schedule', () => {
  it('when a host resolves to a private address at connect time, then the lookup refuses it unless allowed', async () => {
    const lookup = (allow: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) => guardedLookup(allow)('localhost', {}, (err, address) => resolve({ err, address })));
    const refused = await lookup(false);
    expect(refused.err?.code).toBe('EPRIVATETARGET');
    const allowed = await lookup(true);
    expect(allowed.err).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(allowed.address);
  });

  it('when a delivery targets a name that resolves to loopback, then the socket is refused for good unless allowed', async () => {
    const rx = await startReceiver();
    try {
      const url = rx.url.replace('127.0.0.1', 'localhost');
      const refused = await postJson(url, '{}', {}, 5000, false);
      expect(refused).toMatchObject({ statusCode: null, permanent: true });
      expect(rx.received).toHaveLength(0);
      const allowed = await postJson(url, '{}', {}, 5000, true);
      expect(allowed).toMatchObject({ statusCode: 200, error: null });
    } finally {
      await rx.close();
    }
  });

  it.each([
    ['https://example.com/x', null],
    ['http://8.8.8.8/x', null],
    ['http://10.0.0.1/', 'private'],
    ['http://172.20.1.1/', 'private'],
    ['http://192.168.0.10/', 'private'],
    ['http://100.64.0.1/', 'private'],
    ['http://[fe80::1]/', 'private'],
    ['http://[fd00::1]/', 'private'],
    ['http://metadata.google.internal/', 'private'],
    ['http://0x7f000001/', 'private'],
    ['http://localhost./', 'private'],
    ['http://[::127.0.0.1]/', 'private'],
    ['http://[::ffff:0:7f00:1]/', 'private'],
    ['http://[::ffff:127.0.0.1]/', 'private'],
    ['http://[::ffff:203.0.113.5]/', null],
    ['http://[2606:4700::1111]/', null],
    ['javascript:alert(1)', 'invalid'],
    ['//example.com', 'invalid'],
  ])('%s is %s', (url, expected) => {
    expect(checkTargetUrl(url, false)).toBe(expected);
  });

  it('when private targets are allowed, then only the scheme is checked', () => {
    expect(checkTargetUrl('http://127.0.0.1:9/x', true)).toBeNull();
    expect(checkTargetUrl('file:///etc/passwd', true)).toBe('invalid');
    expect(isPrivateAddress('203.0.113.5')).toBe(false);
  });

  it('when attempts fail, then delays grow exponentially with jitter, are capped, and honour Retry-After', () => {
    const cfg = { WEBHOOK_RETRY_BASE_MS: 1000, WEBHOOK_RETRY_MAX_DELAY_MS: 60_000 };
    expect(retryDelayMs(cfg, 1, null, () => 0)).toBe(500);
    expect(retryDelayMs(cfg, 1, null, () => 1)).toBe(1000);
    expect(retryDelayMs(cfg, 4, null, () => 0)).toBe(4000);
    expect(retryDelayMs(cfg, 4, null, () => 1)).toBe(8000);
    expect(retryDelayMs(cfg, 30, null, () => 1)).toBe(60_000);
    expect(retryDelayMs(cfg, 1, 30, () => 0)).toBe(30_000);
    expect(retryDelayMs(cfg, 1, 3600, () => 0)).toBe(60_000);
  });

  it('the default schedule spans about a day before a delivery goes dead', () => {
    const cfg = { WEBHOOK_RETRY_BASE_MS: 20_000, WEBHOOK_RETRY_MAX_DELAY_MS: 12 * 3600_000 };
    let min = 0;
    let max = 0;
    for (let n = 1; n < 13; n++) {
      min += retryDelayMs(cfg, n, null, () => 0);
      max += retryDelayMs(cfg, n, null, () => 1);
    }
    expect(min / 3600_000).toBeGreaterThan(10);
    expect(max / 3600_000).toBeLessThan(48);
  });

  it('signs "{timestamp}.{body}" with HMAC-SHA256 as sha256=<hex>', () => {
    // Known vector: HMAC-SHA256("key", "1700000000.{}")
    expect(signature('key', 1700000000, '{}')).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signature('key', 1700000000, '{}')).not.toBe(signature('key', 1700000001, '{}'));
  });
});
