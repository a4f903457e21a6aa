import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './api-types';
import { checkContract } from './contract';

/** The tests' answers to the typed client are checked against the document, as the plain client's are. */
function contractMiddleware(baseUrl: string): Middleware {
  return {
    async onResponse({ request, response }) {
      const text = await response.clone().text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const url = new URL(request.url);
      await checkContract(baseUrl, { method: request.method, path: url.pathname + url.search, status: response.status, text, body, contentType: response.headers.get('content-type') });
      return response;
    },
  };
}

/**
 * The gateway as an integrator's generated client sees it: openapi-fetch over the types
 * openapi-typescript generated from /openapi.json (tests/support/api-types.ts, `pnpm gen:client`).
 */
export function typedClient(baseUrl: string, token?: string): Client<paths> {
  const client = createClient<paths>({ baseUrl, headers: token ? { api_access_token: token } : {} });
  client.use(contractMiddleware(baseUrl));
  return client;
}

export type { paths };
