#!/usr/bin/env node
/* Creates a demo account, an administrator and an API inbox through the gateway (the
 * Platform API, then the account API) and prints the administrator's token. */
const base = process.env.GATEWAY_URL || `http://localhost:${process.env.PORT || 3000}`;
const platformToken = process.env.PLATFORM_API_TOKEN || 'parley-dev-platform-token-change-me';

async function call(method, path, token, body) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', api_access_token: token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : {};
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return json;
}

async function main() {
  const stamp = Date.now().toString(36);
  const account = await call('POST', '/platform/api/v1/accounts', platformToken, { name: `Demo ${stamp}`, features: { audit_logs: true } });
  const user = await call('POST', '/platform/api/v1/users', platformToken, { name: 'Demo Admin', email: `admin-${stamp}@example.com`, password: `Demo-${stamp}-Pass1!` });
  await call('POST', `/platform/api/v1/accounts/${account.id}/account_users`, platformToken, { user_id: user.id, role: 'administrator' });
  let inbox = null;
  try {
    inbox = await call('POST', `/api/v1/accounts/${account.id}/inboxes`, user.access_token, { name: 'Demo API inbox', channel: { type: 'api' } });
  } catch (err) {
    console.warn(`(inbox not created: ${err.message})`);
  }
  console.log(JSON.stringify({ gateway: base, account_id: account.id, user_id: user.id, api_access_token: user.access_token, inbox_id: inbox?.id ?? null, inbox_identifier: inbox?.inbox_identifier ?? inbox?.channel?.identifier ?? null }, null, 2));
  console.log(`\nTry: curl ${base}/api/v1/profile -H 'api_access_token: ${user.access_token}'`);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
