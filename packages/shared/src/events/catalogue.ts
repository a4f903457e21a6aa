import { z } from 'zod';

/** Every snapshot names its aggregate; the rest of the fields belong to the owner. */
const snapshot = z.looseObject({ id: z.union([z.number(), z.string()]) });

/** Conversation snapshots carry what automation evaluates rules against. */
const conversationSnapshot = z.looseObject({
  id: z.number(),
  display_id: z.number(),
  inbox_id: z.number(),
  status: z.string(),
  priority: z.string().nullable(),
  labels: z.array(z.string()),
  assignee_id: z.number().nullable(),
  team_id: z.number().nullable(),
  contact_id: z.number().nullable(),
  custom_attributes: z.record(z.string(), z.unknown()),
  additional_attributes: z.record(z.string(), z.unknown()),
});

const messageSnapshot = z.looseObject({
  id: z.number(),
  conversation_id: z.number(),
  message_type: z.number().int().min(0).max(3),
  content: z.string().nullable(),
  private: z.boolean(),
  conversation: conversationSnapshot.optional(),
});

/**
 * The event catalogue: routing key -> schema of `data`. Producers are checked against it
 * when they write to the outbox, consumers when they read; unknown types are poison.
 */
export const eventCatalogue = {
  'account.created': snapshot,
  'account.updated': snapshot,
  'account.deleted': snapshot,
  'user.created': snapshot,
  'user.updated': snapshot,
  'user.deleted': snapshot,
  'agent.added': snapshot,
  'agent.updated': snapshot,
  'agent.removed': snapshot,
  'agent_bot.created': snapshot,
  'agent_bot.updated': snapshot,
  'agent_bot.deleted': snapshot,
  'team.created': snapshot,
  'team.updated': snapshot,
  'team.deleted': snapshot,
  'team_member.added': snapshot,
  'team_member.removed': snapshot,
  'inbox.created': snapshot,
  'inbox.updated': snapshot,
  'inbox.deleted': snapshot,
  'inbox_member.added': snapshot,
  'inbox_member.removed': snapshot,
  'conversation.created': conversationSnapshot,
  'conversation.updated': conversationSnapshot,
  'conversation.deleted': conversationSnapshot,
  'conversation.status_changed': conversationSnapshot,
  'conversation.resolved': conversationSnapshot,
  'conversation.opened': conversationSnapshot,
  'conversation.priority_changed': conversationSnapshot,
  'conversation.labels_changed': conversationSnapshot,
  'conversation.read': conversationSnapshot,
  'conversation.typing_on': conversationSnapshot,
  'conversation.typing_off': conversationSnapshot,
  'assignee.changed': conversationSnapshot,
  'team.changed': conversationSnapshot,
  'message.created': messageSnapshot,
  'message.updated': messageSnapshot,
  'message.deleted': messageSnapshot,
  'label.created': snapshot,
  'label.updated': snapshot,
  'label.deleted': snapshot,
  'canned_response.created': snapshot,
  'canned_response.updated': snapshot,
  'canned_response.deleted': snapshot,
  'custom_attribute_definition.created': snapshot,
  'custom_attribute_definition.updated': snapshot,
  'custom_attribute_definition.deleted': snapshot,
  'contact.created': snapshot,
  'contact.updated': snapshot,
  'contact.deleted': snapshot,
  'contact.merged': snapshot,
  'contact_inbox.created': snapshot,
  'portal.created': snapshot,
  'portal.updated': snapshot,
  'portal.deleted': snapshot,
  'category.created': snapshot,
  'category.updated': snapshot,
  'category.deleted': snapshot,
  'article.created': snapshot,
  'article.updated': snapshot,
  'article.published': snapshot,
  'article.archived': snapshot,
  'article.deleted': snapshot,
  'automation_rule.created': snapshot,
  'automation_rule.updated': snapshot,
  'automation_rule.deleted': snapshot,
  'webhook.created': snapshot,
  'webhook.updated': snapshot,
  'webhook.deleted': snapshot,
  /** Used by kernel tests and health probes. */
  'test.ping': snapshot,
} satisfies Record<string, z.ZodType>;

export type EventType = keyof typeof eventCatalogue;
export const eventTypes = Object.keys(eventCatalogue) as EventType[];
