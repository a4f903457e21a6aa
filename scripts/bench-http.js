/**
 * One JSON call to the API through the gateway for the benchmark scripts (seeding); throws on a
 * non-2xx answer. A 503 (a service not reachable yet, or an outage: the request was not applied)
 * is tried again after its Retry-After, up to five times: two stacks starting on two cores can
 * answer one while their services come up.
 */
async function callApi(base, method, p, token, body, attempts = 5) {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { api_access_token: token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status === 503 && attempts > 1) {
    const wait = Math.min(5, Math.max(1, Number(res.headers.get('retry-after')) || 1));
    await new Promise((r) => setTimeout(r, wait * 1000));
    return callApi(base, method, p, token, body, attempts - 1);
  }
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : {};
}

module.exports = { callApi };
