import { defineOperations, operationsOf, type OperationSpec } from '@parley/shared';
import { routes } from './routes';

const CABLE = [
  'Chatwoot\'s real-time channel: a WebSocket speaking Rails ActionCable v1 (`actioncable-v1-json`), proxied to the realtime service; use `@rails/actioncable` or any ActionCable client.',
  '',
  '- Server frames: `{"type":"welcome"}`, `{"type":"ping","message":<unix s>}` every 3 s, `confirm_subscription` / `reject_subscription`, `{"type":"disconnect","reason","reconnect"}`, and data frames `{"identifier","message":{"event","data","id"}}`.',
  '- Subscribe to `{"channel":"RoomChannel","pubsub_token","account_id","user_id"}` with the profile\'s `pubsub_token` (users: the account\'s events, conversations of their inboxes; administrators all), or `{"channel":"RoomChannel","pubsub_token"}` with the token the public contact API answers (a contact: its conversations, never private notes). Anything else is rejected.',
  '- Events: `message.created|updated`, `conversation.created|updated|status_changed|read|typing_on|typing_off`, `assignee.changed`, `team.changed`, `first.reply.created`, `conversation.mentioned` (to the mentioned user, or each member of a mentioned team), `contact.created|updated|merged|deleted`, `account.cache_invalidated` (`{cache_keys: {label, inbox, team}}` when labels, inboxes or teams change), `presence.update` (answer to the `update_presence` action), with Chatwoot\'s push data (`unread_count`: incoming messages after `agent_last_seen_at`, at most 10). No `notification.*`: there are no notifications here.',
  '- Resume: every event carries `id` (increasing per stream). Subscribe with `last_event_id` in the identifier to get every event after it first, in order and once; past retention (24 h or 10,000 events per stream) the first event is `resync.required`: refetch, then go on.',
  '- Typing: `POST /api/v1/accounts/{account_id}/conversations/{conversation_id}/toggle_typing_status` (agents), `.../toggle_typing` (public API).',
].join('\n');

/**
 * `GET /cable`: a WebSocket endpoint (proxied by `cable.ts`, answered 426 by app.ts without the
 * upgrade), so not a route-kit route (those answer 200).
 */
const cableOperation: OperationSpec = {
  method: 'get', path: '/cable', operationId: 'cable', summary: 'Real-time channel (ActionCable WebSocket)', description: CABLE, tags: ['Realtime'], security: [],
  responses: { 101: { description: 'Switching Protocols: the socket speaks ActionCable v1 JSON' } }, errors: [426],
};

/** The gateway's own public operations (Platform API, profile, account, agents, teams, agent bots, the /cable channel), for the API document (`packages/openapi`). */
export const operations = defineOperations([...operationsOf(routes), cableOperation]);
