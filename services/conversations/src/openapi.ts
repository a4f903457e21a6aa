import { z } from 'zod';
import { defineOperations, operationsOf, type OperationSpec, type SecurityScheme } from '@parley/shared';
import { routes } from './routes';
import { emptyObject } from './common/validation';
import {
  assignmentBody, assignmentResponse, contactConversationsResponse, contactParams, conversationListResponse, conversationParams, conversationResponse,
  conversationsMetaQuery, conversationsMetaResponse, createConversationBody, customAttributesBody, customAttributesResponse, labelsBody, labelsResponse,
  listConversationsQuery, togglePriorityBody, toggleStatusBody, toggleTypingStatusBody, toggleStatusResponse, updateConversationBody,
} from './conversations/schemas';
import { publicInboxResponse } from './inboxes/schemas';
import {
  attachmentParams, createMessageBody, listMessagesQuery, messageIdParams, messageListResponse, messageResponse, publicCreateMessageBody, publicListMessagesQuery,
  publicMessageResponse, publicUpdateMessageBody, updateMessageBody,
} from './messages/schemas';
import {
  publicAttachmentParams, publicContactParams, publicConversationListResponse, publicConversationParams, publicConversationResponse, publicCreateConversationBody,
  publicInboxParams, publicMessageParams, toggleTypingBody,
} from './public/schemas';

const A = '/api/v1/accounts/{account_id}';
const C = `${A}/conversations/{conversation_id}`;
const P = '/public/api/v1/inboxes/{inbox_identifier}';
const PC = `${P}/contacts/{contact_identifier}/conversations`;

const user: SecurityScheme[] = ['userApiKey'];
/** Chatwoot's BOT_ACCESSIBLE_ENDPOINTS take agent-bot tokens too. */
const userOrBot: SecurityScheme[] = ['userApiKey', 'agentBotApiKey'];

const attachmentDescription = 'The file as uploaded (its own media type, sent as a download); not JSON.';

function op(spec: OperationSpec): OperationSpec {
  return spec;
}

const conversationOps = [
  op({
    method: 'get', path: `${A}/conversations`, operationId: 'listConversations', summary: 'List conversations',
    description: 'SPEC op 1. 25 a page, newest activity first by default. `meta` counts see every filter but `assignee_type` (and `updated_within`). `status` is ignored when `q` is given (Chatwoot). Agents see the conversations of their inboxes. A `team_id` that is no team of the account is 404 (Chatwoot). `updated_within` (seconds) answers every conversation updated since, unpaginated. `conversation_type`: `mention` (private notes @-mentioning the caller), `participating` (the caller wrote in, was mentioned in or is assigned; any inbox), `unattended`. Unknown or malformed parameters are 400.',
    tags: ['Conversations'], security: user, query: listConversationsQuery, responses: { 200: { description: 'Counts and one page of conversations', schema: conversationListResponse } },
  }),
  op({ method: 'get', path: `${A}/conversations/meta`, operationId: 'getConversationCounts', summary: 'Conversation counts', description: 'The `meta` of the list for the same filters (a `team_id` that is no team of the account is 404).', tags: ['Conversations'], security: user, query: conversationsMetaQuery, responses: { 200: { description: 'The counts', schema: conversationsMetaResponse } } }),
  op({
    method: 'post', path: `${A}/conversations`, operationId: 'createConversation', summary: 'Create a conversation',
    description: 'SPEC op 4. `inbox_id` with `contact_id` (the contact inbox is found or created; `source_id` optional) or with `source_id` of an existing contact inbox. `message` is the initial message (outgoing from the caller unless `message_type` says otherwise). Answers the full conversation.',
    tags: ['Conversations'], security: userOrBot, body: createConversationBody, multipart: true, responses: { 200: { description: 'The new conversation (a superset of SPEC\'s {id, account_id, inbox_id})', schema: conversationResponse } }, errors: [404, 422],
    requestExample: { inbox_id: 1, contact_id: 1, status: 'open', custom_attributes: { plan: 'pro' }, message: { content: 'Hello! How can we help?' } },
  }),
  op({ method: 'get', path: C, operationId: 'getConversation', summary: 'Show a conversation', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'The conversation', schema: conversationResponse } } }),
  op({ method: 'patch', path: C, operationId: 'updateConversation', summary: 'Update a conversation (priority)', tags: ['Conversations'], security: userOrBot, params: conversationParams, body: updateConversationBody, responses: { 200: { description: 'The conversation', schema: conversationResponse } } }),
  op({ method: 'put', path: C, operationId: 'replaceConversation', summary: 'Update a conversation (same as PATCH)', tags: ['Conversations'], security: userOrBot, params: conversationParams, body: updateConversationBody, responses: { 200: { description: 'The conversation', schema: conversationResponse } } }),
  op({ method: 'delete', path: C, operationId: 'deleteConversation', summary: 'Delete a conversation', description: 'Administrators only.', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'Deleted', schema: emptyObject } } }),
  op({
    method: 'post', path: `${C}/toggle_status`, operationId: 'toggleConversationStatus', summary: 'Change or toggle the status',
    description: 'With `status` (`open`, `resolved`, `pending`, `snoozed` with `snoozed_until` in unix seconds or ISO-8601) it is set; without, open and resolved alternate. A snoozed conversation reopens by itself when the time comes.',
    tags: ['Conversations'], security: userOrBot, params: conversationParams, body: toggleStatusBody, responses: { 200: { description: 'The new status', schema: toggleStatusResponse } },
  }),
  op({
    method: 'post', path: `${C}/toggle_priority`, operationId: 'toggleConversationPriority', summary: 'Set the priority',
    description: 'SPEC op 7. `none` (or null, or no value) clears it.', tags: ['Conversations'], security: userOrBot, params: conversationParams, body: togglePriorityBody,
    responses: { 200: { description: 'Done', schema: emptyObject } }, requestExample: { priority: 'high' },
  }),
  op({
    method: 'post', path: `${C}/assignments`, operationId: 'assignConversation', summary: 'Assign an agent or a team',
    description: '`assignee_id` (null unassigns) answers the agent or null; otherwise `team_id` (null unassigns the team) answers the team or null.',
    tags: ['Conversations'], security: userOrBot, params: conversationParams, body: assignmentBody, responses: { 200: { description: 'The assignee, the team, or null', schema: assignmentResponse } },
  }),
  op({ method: 'post', path: `${C}/custom_attributes`, operationId: 'setConversationCustomAttributes', summary: 'Replace the custom attributes', tags: ['Conversations'], security: userOrBot, params: conversationParams, body: customAttributesBody, responses: { 200: { description: 'The custom attributes now', schema: customAttributesResponse } } }),
  op({ method: 'get', path: `${C}/labels`, operationId: 'listConversationLabels', summary: 'The labels of a conversation', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'The labels', schema: labelsResponse } } }),
  op({
    method: 'post', path: `${C}/labels`, operationId: 'setConversationLabels', summary: 'Add labels to a conversation', description: 'SPEC op 6: the list replaces the conversation\'s labels.',
    tags: ['Conversations'], security: user, params: conversationParams, body: labelsBody, responses: { 200: { description: 'The labels now', schema: labelsResponse } }, requestExample: { labels: ['billing', 'vip'] },
  }),
  op({ method: 'post', path: `${C}/toggle_typing_status`, operationId: 'toggleConversationTyping', summary: 'Say the agent is typing (or stopped)', description: 'Sends `conversation.typing_on|typing_off` to the realtime channel (`/cable`): the conversation\'s agents and its contact; `is_private` marks typing of a private note.', tags: ['Conversations'], security: user, params: conversationParams, body: toggleTypingStatusBody, responses: { 200: { description: 'Done', schema: emptyObject } } }),
  op({ method: 'post', path: `${C}/mute`, operationId: 'muteConversation', summary: 'Mute (and resolve) a conversation', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'Done', schema: emptyObject } } }),
  op({ method: 'post', path: `${C}/unmute`, operationId: 'unmuteConversation', summary: 'Unmute a conversation', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'Done', schema: emptyObject } } }),
  op({ method: 'post', path: `${C}/update_last_seen`, operationId: 'markConversationSeen', summary: 'Mark the conversation read by the caller', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'The conversation', schema: conversationResponse } } }),
  op({ method: 'post', path: `${C}/unread`, operationId: 'markConversationUnread', summary: 'Mark the last incoming message unread', tags: ['Conversations'], security: user, params: conversationParams, responses: { 200: { description: 'The conversation', schema: conversationResponse } } }),
  op({ method: 'get', path: `${A}/contacts/{contact_id}/conversations`, operationId: 'listContactConversations', summary: 'The newest conversations of a contact', tags: ['Conversations'], security: user, params: contactParams, responses: { 200: { description: 'Up to 20 conversations', schema: contactConversationsResponse } } }),
];

const messageOps = [
  op({ method: 'get', path: `${C}/messages`, operationId: 'listMessages', summary: 'List messages', description: 'The newest 20, oldest first; `before` gives the 20 before a message id, `after` up to 100 after one.', tags: ['Messages'], security: user, params: conversationParams, query: listMessagesQuery, responses: { 200: { description: 'The messages', schema: messageListResponse } } }),
  op({
    method: 'post', path: `${C}/messages`, operationId: 'createMessage', summary: 'Create a message',
    description: 'Outgoing from the caller by default; `message_type: "incoming"` is from the contact and reopens a resolved or snoozed conversation. `private: true` is a note. Files come as multipart `attachments[]`.',
    tags: ['Messages'], security: userOrBot, params: conversationParams, body: createMessageBody, multipart: true, responses: { 200: { description: 'The message', schema: messageResponse } }, requestExample: { content: 'Hi, how can we help?' },
  }),
  op({ method: 'patch', path: `${C}/messages/{id}`, operationId: 'updateMessage', summary: 'Update a message', tags: ['Messages'], security: user, params: messageIdParams, body: updateMessageBody, responses: { 200: { description: 'The message', schema: messageResponse } } }),
  op({ method: 'delete', path: `${C}/messages/{id}`, operationId: 'deleteMessage', summary: 'Delete a message (softly)', description: 'The text becomes "This message was deleted" and the files go.', tags: ['Messages'], security: user, params: messageIdParams, responses: { 200: { description: 'The message as it is now', schema: messageResponse } } }),
  op({ method: 'get', path: `${C}/messages/{message_id}/attachments/{id}`, operationId: 'downloadAttachment', summary: 'Download an attachment', tags: ['Messages'], security: user, params: attachmentParams, responses: { 200: { description: attachmentDescription } } }),
];

const publicOps = [
  op({ method: 'get', path: P, operationId: 'getPublicInbox', summary: 'Show an API inbox to its clients', tags: ['Public conversations'], security: [], params: publicInboxParams, responses: { 200: { description: 'The inbox', schema: publicInboxResponse } } }),
  op({ method: 'get', path: PC, operationId: 'listPublicConversations', summary: 'List the contact\'s conversations', description: 'Those of this contact inbox; every conversation of the contact when its identity is HMAC-verified.', tags: ['Public conversations'], security: [], params: publicContactParams, responses: { 200: { description: 'The conversations', schema: publicConversationListResponse } } }),
  op({ method: 'post', path: PC, operationId: 'createPublicConversation', summary: 'Start a conversation', tags: ['Public conversations'], security: [], params: publicContactParams, body: publicCreateConversationBody, responses: { 200: { description: 'The conversation', schema: publicConversationResponse } } }),
  op({
    method: 'get', path: `${PC}/{conversation_id}`, operationId: 'getPublicConversation', summary: 'Get a single conversation (public)',
    description: 'SPEC op 14. The chat messages only (no private notes, no activity), oldest first. A wrong inbox, contact or conversation is 404.',
    tags: ['Public conversations'], security: [], params: publicConversationParams, responses: { 200: { description: 'The conversation', schema: publicConversationResponse } },
  }),
  op({ method: 'post', path: `${PC}/{conversation_id}/toggle_status`, operationId: 'resolvePublicConversation', summary: 'Resolve the conversation', description: 'A contact can only resolve (Chatwoot); it reopens with their next message.', tags: ['Public conversations'], security: [], params: publicConversationParams, responses: { 200: { description: 'The conversation', schema: publicConversationResponse } } }),
  op({ method: 'post', path: `${PC}/{conversation_id}/toggle_typing`, operationId: 'togglePublicTyping', summary: 'Say the contact is typing (or stopped)', tags: ['Public conversations'], security: [], params: publicConversationParams, body: toggleTypingBody, responses: { 200: { description: 'Done', schema: emptyObject } } }),
  op({ method: 'post', path: `${PC}/{conversation_id}/update_last_seen`, operationId: 'markPublicConversationSeen', summary: 'Mark the conversation read by the contact', tags: ['Public conversations'], security: [], params: publicConversationParams, responses: { 200: { description: 'Done', schema: emptyObject } } }),
  op({ method: 'get', path: `${PC}/{conversation_id}/messages`, operationId: 'listPublicMessages', summary: 'List messages', description: 'The newest 20 chat messages, oldest first; `before` pages back.', tags: ['Public conversations'], security: [], params: publicConversationParams, query: publicListMessagesQuery, responses: { 200: { description: 'The messages', schema: z.array(publicMessageResponse) } } }),
  op({ method: 'post', path: `${PC}/{conversation_id}/messages`, operationId: 'createPublicMessage', summary: 'Send a message as the contact', description: 'An incoming message; reopens a resolved or snoozed conversation. Files come as multipart `attachments[]`.', tags: ['Public conversations'], security: [], params: publicConversationParams, body: publicCreateMessageBody, multipart: true, responses: { 200: { description: 'The message', schema: publicMessageResponse } }, requestExample: { content: 'Hello, I need help' } }),
  op({ method: 'patch', path: `${PC}/{conversation_id}/messages/{id}`, operationId: 'updatePublicMessage', summary: 'Answer a form or survey message', tags: ['Public conversations'], security: [], params: publicMessageParams, body: publicUpdateMessageBody, responses: { 200: { description: 'The message', schema: publicMessageResponse } } }),
  op({ method: 'get', path: `${PC}/{conversation_id}/messages/{message_id}/attachments/{id}`, operationId: 'downloadPublicAttachment', summary: 'Download an attachment', tags: ['Public conversations'], security: [], params: publicAttachmentParams, responses: { 200: { description: attachmentDescription } } }),
];

/** Every public route of the conversations service, as integrators see it through the gateway. */
export const operations = defineOperations([...conversationOps, ...messageOps, ...publicOps, ...operationsOf(routes)]);
