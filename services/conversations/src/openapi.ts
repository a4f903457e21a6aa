import { z } from 'zod';
import { defineOperations, type OperationSpec, type SecurityScheme } from '@parley/shared';
import { emptyObject, idParams } from './common/validation';
import {
  assignmentBody, assignmentResponse, contactConversationsResponse, contactParams, conversationListResponse, conversationParams, conversationResponse,
  conversationsMetaQuery, conversationsMetaResponse, createConversationBody, customAttributesBody, customAttributesResponse, labelsBody, labelsResponse,
  listConversationsQuery, togglePriorityBody, toggleStatusBody, toggleStatusResponse, updateConversationBody,
} from './conversations/schemas';
import { createInboxBody, inboxIdParams, inboxListResponse, inboxMembersBody, inboxMembersResponse, inboxResponse, publicInboxResponse, updateInboxBody } from './inboxes/schemas';
import {
  attachmentParams, createMessageBody, listMessagesQuery, messageIdParams, messageListResponse, messageResponse, publicCreateMessageBody, publicListMessagesQuery,
  publicMessageResponse, publicUpdateMessageBody, updateMessageBody,
} from './messages/schemas';
import { createLabelBody, labelListResponse, labelResponse, updateLabelBody } from './labels/schemas';
import {
  createCustomAttributeBody, customAttributeListResponse, customAttributeResponse, listCustomAttributesQuery, updateCustomAttributeBody,
} from './custom-attributes/schemas';
import { cannedResponseListResponse, cannedResponseResponse, createCannedResponseBody, listCannedResponsesQuery, updateCannedResponseBody } from './canned-responses/schemas';
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

const inboxOps = [
  op({ method: 'get', path: `${A}/inboxes`, operationId: 'listInboxes', summary: 'List inboxes', description: 'Agents see the inboxes they are members of; administrators all (with `hmac_token`).', tags: ['Inboxes'], security: user, responses: { 200: { description: 'The inboxes', schema: inboxListResponse } } }),
  op({ method: 'post', path: `${A}/inboxes`, operationId: 'createInbox', summary: 'Create an API inbox', description: 'Administrators only. Only the API channel exists (`channel.type: "api"`). The answer carries `inbox_identifier` (for the public API) and `hmac_token`.', tags: ['Inboxes'], security: user, body: createInboxBody, responses: { 200: { description: 'The new inbox', schema: inboxResponse } }, requestExample: { name: 'Website', channel: { type: 'api', webhook_url: 'https://example.com/hooks/parley' } } }),
  op({ method: 'get', path: `${A}/inboxes/{id}`, operationId: 'getInbox', summary: 'Show an inbox', tags: ['Inboxes'], security: user, params: idParams, responses: { 200: { description: 'The inbox', schema: inboxResponse } } }),
  op({ method: 'patch', path: `${A}/inboxes/{id}`, operationId: 'updateInbox', summary: 'Update an inbox', description: 'Administrators only.', tags: ['Inboxes'], security: user, params: idParams, body: updateInboxBody, responses: { 200: { description: 'The inbox', schema: inboxResponse } } }),
  op({ method: 'put', path: `${A}/inboxes/{id}`, operationId: 'replaceInbox', summary: 'Update an inbox (same as PATCH)', tags: ['Inboxes'], security: user, params: idParams, body: updateInboxBody, responses: { 200: { description: 'The inbox', schema: inboxResponse } } }),
  op({ method: 'delete', path: `${A}/inboxes/{id}`, operationId: 'deleteInbox', summary: 'Delete an inbox', description: 'Administrators only. Its conversations and messages go with it.', tags: ['Inboxes'], security: user, params: idParams, responses: { 200: { description: 'Deleted', schema: emptyObject } } }),
  op({ method: 'get', path: `${A}/inbox_members/{inbox_id}`, operationId: 'listInboxMembers', summary: 'List the agents of an inbox', tags: ['Inboxes'], security: user, params: inboxIdParams, responses: { 200: { description: 'The members', schema: inboxMembersResponse } } }),
  op({ method: 'post', path: `${A}/inbox_members`, operationId: 'addInboxMembers', summary: 'Add agents to an inbox', description: 'Administrators only. Every user must be an agent of the account (422 otherwise).', tags: ['Inboxes'], security: user, body: inboxMembersBody, responses: { 200: { description: 'The members now', schema: inboxMembersResponse } } }),
  op({ method: 'patch', path: `${A}/inbox_members`, operationId: 'setInboxMembers', summary: 'Replace the agents of an inbox', tags: ['Inboxes'], security: user, body: inboxMembersBody, responses: { 200: { description: 'The members now', schema: inboxMembersResponse } } }),
  op({ method: 'put', path: `${A}/inbox_members`, operationId: 'replaceInboxMembers', summary: 'Replace the agents of an inbox (same as PATCH)', tags: ['Inboxes'], security: user, body: inboxMembersBody, responses: { 200: { description: 'The members now', schema: inboxMembersResponse } } }),
  op({ method: 'delete', path: `${A}/inbox_members`, operationId: 'removeInboxMembers', summary: 'Remove agents from an inbox', tags: ['Inboxes'], security: user, body: inboxMembersBody, responses: { 200: { description: 'The members now', schema: inboxMembersResponse } } }),
];

const conversationOps = [
  op({
    method: 'get', path: `${A}/conversations`, operationId: 'listConversations', summary: 'List conversations',
    description: 'SPEC op 1. 25 a page, newest activity first by default. `meta` counts see every filter but `assignee_type`. `status` is ignored when `q` is given (Chatwoot). Agents see the conversations of their inboxes. Unknown or malformed parameters are 400.',
    tags: ['Conversations'], security: user, query: listConversationsQuery, responses: { 200: { description: 'Counts and one page of conversations', schema: conversationListResponse } },
  }),
  op({ method: 'get', path: `${A}/conversations/meta`, operationId: 'getConversationCounts', summary: 'Conversation counts', description: 'The `meta` of the list for the same filters.', tags: ['Conversations'], security: user, query: conversationsMetaQuery, responses: { 200: { description: 'The counts', schema: conversationsMetaResponse } } }),
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

const labelOps = [
  op({ method: 'get', path: `${A}/labels`, operationId: 'listLabels', summary: 'List labels', tags: ['Labels'], security: user, responses: { 200: { description: 'The labels', schema: labelListResponse } } }),
  op({ method: 'post', path: `${A}/labels`, operationId: 'createLabel', summary: 'Create a label', description: 'Administrators only. Titles are letters, digits, `-` and `_`, stored lowercase, unique per account (409).', tags: ['Labels'], security: user, body: createLabelBody, responses: { 200: { description: 'The label', schema: labelResponse } }, errors: [409] }),
  op({ method: 'get', path: `${A}/labels/{id}`, operationId: 'getLabel', summary: 'Show a label', tags: ['Labels'], security: user, params: idParams, responses: { 200: { description: 'The label', schema: labelResponse } } }),
  op({ method: 'patch', path: `${A}/labels/{id}`, operationId: 'updateLabel', summary: 'Update a label', description: 'Administrators only. A new title is applied to the conversations that carry the old one.', tags: ['Labels'], security: user, params: idParams, body: updateLabelBody, responses: { 200: { description: 'The label', schema: labelResponse } }, errors: [409] }),
  op({ method: 'put', path: `${A}/labels/{id}`, operationId: 'replaceLabel', summary: 'Update a label (same as PATCH)', tags: ['Labels'], security: user, params: idParams, body: updateLabelBody, responses: { 200: { description: 'The label', schema: labelResponse } }, errors: [409] }),
  op({ method: 'delete', path: `${A}/labels/{id}`, operationId: 'deleteLabel', summary: 'Delete a label', tags: ['Labels'], security: user, params: idParams, responses: { 200: { description: 'Deleted', schema: emptyObject } } }),
];

const cannedOps = [
  op({ method: 'get', path: `${A}/canned_responses`, operationId: 'listCannedResponses', summary: 'List canned responses', description: '`search` matches short code or content; short codes starting with it first.', tags: ['Canned Responses'], security: user, query: listCannedResponsesQuery, responses: { 200: { description: 'The canned responses', schema: cannedResponseListResponse } } }),
  op({ method: 'post', path: `${A}/canned_responses`, operationId: 'createCannedResponse', summary: 'Create a canned response', description: 'Any member. Flat or wrapped in `canned_response`. Short codes are unique per account (409).', tags: ['Canned Responses'], security: user, body: createCannedResponseBody, responses: { 200: { description: 'The canned response', schema: cannedResponseResponse } }, errors: [409] }),
  op({ method: 'patch', path: `${A}/canned_responses/{id}`, operationId: 'updateCannedResponse', summary: 'Update a canned response', tags: ['Canned Responses'], security: user, params: idParams, body: updateCannedResponseBody, responses: { 200: { description: 'The canned response', schema: cannedResponseResponse } }, errors: [409] }),
  op({ method: 'put', path: `${A}/canned_responses/{id}`, operationId: 'replaceCannedResponse', summary: 'Update a canned response (same as PATCH)', tags: ['Canned Responses'], security: user, params: idParams, body: updateCannedResponseBody, responses: { 200: { description: 'The canned response', schema: cannedResponseResponse } }, errors: [409] }),
  op({ method: 'delete', path: `${A}/canned_responses/{id}`, operationId: 'deleteCannedResponse', summary: 'Delete canned response', description: 'SPEC op 11. Any member, agents included.', tags: ['Canned Responses'], security: user, params: idParams, responses: { 200: { description: 'Deleted', schema: emptyObject } } }),
];

const CA = `${A}/custom_attribute_definitions`;
const customAttributeOps = [
  op({
    method: 'get', path: CA, operationId: 'listCustomAttributeDefinitions', summary: 'List custom attribute definitions',
    description: 'Every member. `attribute_model` (`conversation_attribute` or 0, `contact_attribute` or 1; `filter_type` is accepted for it) narrows the list; without it all come, oldest first.',
    tags: ['Custom Attributes'], security: user, query: listCustomAttributesQuery, responses: { 200: { description: 'The definitions', schema: customAttributeListResponse } },
  }),
  op({
    method: 'post', path: CA, operationId: 'createCustomAttributeDefinition', summary: 'Create a custom attribute definition',
    description: 'Administrators only. Flat or wrapped in `custom_attribute_definition`. `attribute_display_type` and `attribute_model` take the name or Chatwoot\'s integer. `attribute_key` is unique per account and model (409) and may not be a standard attribute of the model (422 `key_conflict`); a `list` needs `attribute_values`.',
    tags: ['Custom Attributes'], security: user, body: createCustomAttributeBody, responses: { 200: { description: 'The definition', schema: customAttributeResponse } }, errors: [409],
    requestExample: { attribute_display_name: 'Order number', attribute_key: 'order_number', attribute_display_type: 'text', attribute_model: 'conversation_attribute' },
  }),
  op({ method: 'get', path: `${CA}/{id}`, operationId: 'getCustomAttributeDefinition', summary: 'Show a custom attribute definition', tags: ['Custom Attributes'], security: user, params: idParams, responses: { 200: { description: 'The definition', schema: customAttributeResponse } } }),
  op({ method: 'patch', path: `${CA}/{id}`, operationId: 'updateCustomAttributeDefinition', summary: 'Update a custom attribute definition', description: 'Administrators only.', tags: ['Custom Attributes'], security: user, params: idParams, body: updateCustomAttributeBody, responses: { 200: { description: 'The definition', schema: customAttributeResponse } }, errors: [409] }),
  op({ method: 'put', path: `${CA}/{id}`, operationId: 'replaceCustomAttributeDefinition', summary: 'Update a custom attribute definition (same as PATCH)', tags: ['Custom Attributes'], security: user, params: idParams, body: updateCustomAttributeBody, responses: { 200: { description: 'The definition', schema: customAttributeResponse } }, errors: [409] }),
  op({ method: 'delete', path: `${CA}/{id}`, operationId: 'deleteCustomAttributeDefinition', summary: 'Delete a custom attribute definition', description: 'Administrators only. Values already stored under the key stay.', tags: ['Custom Attributes'], security: user, params: idParams, responses: { 200: { description: 'Deleted', schema: emptyObject } } }),
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
export const operations = defineOperations([...inboxOps, ...conversationOps, ...messageOps, ...labelOps, ...cannedOps, ...customAttributeOps, ...publicOps]);
