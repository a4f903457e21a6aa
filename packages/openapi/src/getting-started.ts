/**
 * The top of the rendered docs (`info.description`): the path an integrator walks first.
 * The same walkthrough, longer and with the reasons, is `docs/getting-started.md`.
 */
export const GETTING_STARTED = `
Parley is a Chatwoot-compatible customer-conversation API. Every request goes to this gateway;
send JSON and, except on the public client API, a token in the header \`api_access_token\`.
Every error answer has the same body: \`{"description": "...", "errors": [{"field", "message", "code"}]}\`.

### Getting started

1. **Bootstrap an account** with the platform token (\`PLATFORM_API_TOKEN\`, scheme \`platformAppApiKey\`):
   \`POST /platform/api/v1/accounts\` \`{"name": "Acme"}\`, then \`POST /platform/api/v1/users\`
   \`{"name", "email", "password"}\`, then \`POST /platform/api/v1/accounts/{account_id}/account_users\`
   \`{"user_id", "role": "administrator"}\`. The user's \`access_token\` (in the user answer, or from
   \`POST /platform/api/v1/users/{id}/token\`) is the \`userApiKey\` for everything below.
2. **Create an API inbox**: \`POST /api/v1/accounts/{account_id}/inboxes\`
   \`{"name": "Website", "channel": {"type": "api", "webhook_url": "https://example.com/hook"}}\`.
   Keep its \`inbox_identifier\`: clients use it on the public API.
3. **Talk through the public client API** (no token): \`POST /public/api/v1/inboxes/{inbox_identifier}/contacts\`
   gives a contact with a \`source_id\`; \`POST .../contacts/{source_id}/conversations\` opens a conversation;
   \`POST .../conversations/{conversation_id}/messages\` \`{"content": "Hello"}\` sends a message. Agents see it in
   \`GET /api/v1/accounts/{account_id}/conversations\` and answer with
   \`POST /api/v1/accounts/{account_id}/conversations/{conversation_id}/messages\`.
4. **Receive webhooks**: \`POST /api/v1/accounts/{account_id}/webhooks\`
   \`{"url": "https://example.com/hook", "subscriptions": ["conversation_created", "message_created"]}\`.
   Parley POSTs each event as JSON to that URL, signed and retried (see the webhooks operations).

The document itself: [/openapi.json](/openapi.json) · [/openapi.yaml](/openapi.yaml).
`.trim();
