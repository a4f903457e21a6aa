import { z } from 'zod';
import {
  accountContract,
  agentBotEventContract,
  agentContract,
  contactContract,
  contactInboxEventContract,
  contactMergedContract,
  conversationContract,
  inboxContract,
  inboxMemberContract,
  messageContract,
  pubsubTokenRotatedContract,
  teamContract,
  teamMemberContract,
  typingContract,
  userContract,
} from '../contracts';

/** Records whose contract is not written yet: they name their aggregate, the rest belongs to the owner. */
const record = z.looseObject({ id: z.union([z.number(), z.string()]) });

/**
 * The event catalogue: routing key -> schema of `data` (the owners' contracts,
 * `../contracts`). Producers are checked against it when they write to the outbox, consumers
 * when they read (`defineConsumer` hands handlers typed, validated data); unknown types are
 * poison.
 */
export const eventCatalogue = {
  'account.created': accountContract,
  'account.updated': accountContract,
  'account.deleted': accountContract,
  'user.created': userContract,
  'user.updated': userContract,
  'user.deleted': userContract,
  'user.pubsub_token_rotated': pubsubTokenRotatedContract,
  'agent.added': agentContract,
  'agent.updated': agentContract,
  'agent.removed': agentContract,
  'agent_bot.created': agentBotEventContract,
  'agent_bot.updated': agentBotEventContract,
  'agent_bot.deleted': agentBotEventContract,
  'team.created': teamContract,
  'team.updated': teamContract,
  'team.deleted': teamContract,
  'team_member.added': teamMemberContract,
  'team_member.removed': teamMemberContract,
  'inbox.created': inboxContract,
  'inbox.updated': inboxContract,
  'inbox.deleted': inboxContract,
  'inbox_member.added': inboxMemberContract,
  'inbox_member.removed': inboxMemberContract,
  'conversation.created': conversationContract,
  'conversation.updated': conversationContract,
  'conversation.deleted': conversationContract,
  'conversation.status_changed': conversationContract,
  'conversation.resolved': conversationContract,
  'conversation.opened': conversationContract,
  'conversation.priority_changed': conversationContract,
  'conversation.labels_changed': conversationContract,
  'conversation.read': conversationContract,
  'conversation.typing_on': typingContract,
  'conversation.typing_off': typingContract,
  'assignee.changed': conversationContract,
  'team.changed': conversationContract,
  'message.created': messageContract,
  'message.updated': messageContract,
  'message.deleted': messageContract,
  'label.created': record,
  'label.updated': record,
  'label.deleted': record,
  'canned_response.created': record,
  'canned_response.updated': record,
  'canned_response.deleted': record,
  'custom_attribute_definition.created': record,
  'custom_attribute_definition.updated': record,
  'custom_attribute_definition.deleted': record,
  'contact.created': contactContract,
  'contact.updated': contactContract,
  'contact.deleted': contactContract,
  'contact.merged': contactMergedContract,
  'contact_inbox.created': contactInboxEventContract,
  'portal.created': record,
  'portal.updated': record,
  'portal.deleted': record,
  'category.created': record,
  'category.updated': record,
  'category.deleted': record,
  'article.created': record,
  'article.updated': record,
  'article.published': record,
  'article.archived': record,
  'article.deleted': record,
  'automation_rule.created': record,
  'automation_rule.updated': record,
  'automation_rule.deleted': record,
  'webhook.created': record,
  'webhook.updated': record,
  'webhook.deleted': record,
  /** Used by kernel tests and health probes. */
  'test.ping': record,
} satisfies Record<string, z.ZodType>;

export type EventCatalogue = typeof eventCatalogue;
export type EventType = keyof EventCatalogue;
export const eventTypes = Object.keys(eventCatalogue) as EventType[];

/** The `data` of an event type, as its contract describes it. */
export type EventData<T extends EventType> = z.infer<EventCatalogue[T]>;
