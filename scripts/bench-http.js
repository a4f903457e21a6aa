/** One JSON call to the API through the gateway for the benchmark scripts (seeding); throws on a non-2xx answer. */
async function callApi(base, method, p, token, body) {
  const res = await fetch(base + p, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { api_access_token: token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} -> ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : {};
}

module.exports = { callApi };
