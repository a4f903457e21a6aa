import { createHmac } from 'node:crypto';
import type { SeededAccount } from './factories';
import { checkContract } from './contract';
import type { client } from './http';

type Call = ReturnType<typeof client>;

/** The parts of an API inbox (created through the conversations service) the contact tests use. */
export interface ApiInbox {
  id: number;
  name: string;
  inbox_identifier: string;
  hmac_token: string;
  hmac_mandatory: boolean;
}

/** An API channel inbox, made by the account's administrator through the gateway. */
export async function createApiInbox(call: Call, acc: SeededAccount, opts: { hmacMandatory?: boolean; name?: string } = {}): Promise<ApiInbox> {
  const res = await call('POST', `/api/v1/accounts/${acc.accountId}/inboxes`, {
    token: acc.admin.token,
    body: { name: opts.name ?? 'Website', channel: { type: 'api', hmac_mandatory: opts.hmacMandatory ?? false } },
  });
  if (res.status !== 200) throw new Error(`inbox create answered ${res.status}: ${res.text}`);
  return res.body as ApiInbox;
}

/** What an integrator sends as `identifier_hash`: hex HMAC-SHA256 of the identifier keyed by the inbox hmac_token. */
export function identifierHash(inbox: ApiInbox, identifier: string): string {
  return createHmac('sha256', inbox.hmac_token).update(identifier).digest('hex');
}

/** A multipart request through the gateway, its answer checked against the OpenAPI document like the JSON client's. */
export async function sendForm(baseUrl: string, method: string, path: string, form: FormData, token?: string): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers['api_access_token'] = token;
  const res = await fetch(baseUrl + path, { method, headers, body: form });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  await checkContract(baseUrl, { method, path, status: res.status, text, body, contentType: res.headers.get('content-type') });
  return { status: res.status, body, text };
}

/** A 1x1 PNG. */
export const PNG_1X1 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
