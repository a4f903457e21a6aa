import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes } from 'node:crypto';
import { waitFor } from '@parley/testkit';
import { startStack, PLATFORM_TOKEN, type Stack } from '../../support/stack';
import { typedClient } from '../../support/typed-client';

/**
 * docs/getting-started.md, step by step, with the client generated from the document, the
 * way an integrator would follow it: bootstrap an account through the Platform API, create
 * an API inbox, talk through the public client API, answer as an agent, receive webhooks.
 */

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

describe('getting started, as the docs tell it', () => {
  let stack: Stack;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: Received[] = [];

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
        received.push({ headers: req.headers, raw, body });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    // The receiver is on loopback, which production refuses (SSRF guard).
    stack = await startStack({ service: { automation: { WEBHOOK_ALLOW_PRIVATE: true } } });
  });
  afterAll(async () => {
    await stack?.stop();
    receiver?.close();
  });

  it('when an integrator follows the getting-started steps, then each answers as documented and the webhook arrives signed', async () => {
    const suffix = randomBytes(4).toString('hex');
    const platform = typedClient(stack.gatewayUrl, PLATFORM_TOKEN);

    // 1. Bootstrap: account, user, membership, the user's token.
    const account = await platform.POST('/platform/api/v1/accounts', { body: { name: `Getting started ${suffix}` } });
    expect(account.response.status).toBe(200);
    const accountId = account.data!.id;
    const user = await platform.POST('/platform/api/v1/users', { body: { name: `Admin ${suffix}`, email: `gs-${suffix}@example.com`, password: 'Getting-started-1!' } });
    expect(user.response.status).toBe(200);
    const membership = await platform.POST('/platform/api/v1/accounts/{id}/account_users', { params: { path: { id: accountId } }, body: { user_id: user.data!.id, role: 'administrator' } });
    expect(membership.response.status).toBe(200);
    const token = (await platform.POST('/platform/api/v1/users/{id}/token', { params: { path: { id: user.data!.id } } })).data!.access_token;
    const api = typedClient(stack.gatewayUrl, token);
    const account_id = accountId;

    // 4 (first, so nothing is missed). Subscribe a webhook.
    const webhook = await api.POST('/api/v1/accounts/{account_id}/webhooks', {
      params: { path: { account_id } },
      body: { url: receiverUrl, subscriptions: ['conversation_created', 'message_created'] },
    });
    expect(webhook.response.status).toBe(200);
    const secret: string = webhook.data!.payload.webhook.secret;

    // 2. An API inbox; its identifier is what clients use.
    const inbox = await api.POST('/api/v1/accounts/{account_id}/inboxes', { params: { path: { account_id } }, body: { name: `Website ${suffix}`, channel: { type: 'api' } } });
    expect(inbox.response.status).toBe(200);
    const inbox_identifier: string = inbox.data!.inbox_identifier;
    expect(inbox_identifier).toEqual(expect.any(String));

    // 3. The public client API: contact, conversation, message; no token.
    const pub = typedClient(stack.gatewayUrl);
    const contact = await pub.POST('/public/api/v1/inboxes/{inbox_identifier}/contacts', { params: { path: { inbox_identifier } }, body: { name: `Visitor ${suffix}`, email: `visitor-${suffix}@example.com` } });
    expect(contact.response.status).toBe(200);
    const contact_identifier: string = contact.data!.source_id;
    const conversation = await pub.POST('/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations', { params: { path: { inbox_identifier, contact_identifier } }, body: {} });
    expect(conversation.response.status).toBe(200);
    const conversation_id: number = conversation.data!.id;
    const message = await pub.POST('/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}/messages', {
      params: { path: { inbox_identifier, contact_identifier, conversation_id } },
      body: { content: `Hello ${suffix}` },
    });
    expect(message.response.status).toBe(200);

    // The agent sees it and answers.
    const list = await waitFor(async () => {
      const r = await api.GET('/api/v1/accounts/{account_id}/conversations', { params: { path: { account_id }, query: { status: 'all' } } });
      return r.data?.data?.payload?.some((c: { id: number }) => c.id === conversation_id) ? r : null;
    });
    expect(list.response.status).toBe(200);
    const reply = await api.POST('/api/v1/accounts/{account_id}/conversations/{conversation_id}/messages', { params: { path: { account_id, conversation_id } }, body: { content: 'Hi, how can we help?' } });
    expect(reply.response.status).toBe(200);

    // The public view shows both messages.
    const seen = await pub.GET('/public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}/conversations/{conversation_id}', { params: { path: { inbox_identifier, contact_identifier, conversation_id } } });
    expect(seen.response.status).toBe(200);
    expect(seen.data!.messages.map((m) => m.content)).toEqual(expect.arrayContaining([`Hello ${suffix}`, 'Hi, how can we help?']));

    // 4. The webhook receiver got the events, signed with the webhook's secret.
    const incoming = await waitFor(() => received.find((r) => r.body?.event === 'message_created' && r.body?.content === `Hello ${suffix}`) ?? null, { timeoutMs: 30_000 });
    const timestamp = incoming.headers['x-chatwoot-timestamp'] as string;
    const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${incoming.raw}`).digest('hex')}`;
    expect(incoming.headers['x-chatwoot-signature']).toBe(expected);
    await waitFor(() => received.find((r) => r.body?.event === 'conversation_created') ?? null, { timeoutMs: 30_000 });
  });
});
