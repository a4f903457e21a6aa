/**
 * What a rule may say, after Chatwoot's `AutomationRule` model and `lib/filters/filter_keys.yml`
 * (reference Op 2): event names, condition keys with the operators valid for each, and actions.
 */

export const RULE_EVENT_NAMES = ['conversation_created', 'conversation_updated', 'conversation_resolved', 'conversation_opened', 'message_created'] as const;
export type RuleEventName = (typeof RULE_EVENT_NAMES)[number];

/** Bus event type -> the rule event it triggers. */
export const RULE_EVENT_BY_TYPE: Record<string, RuleEventName> = {
  'conversation.created': 'conversation_created',
  'conversation.updated': 'conversation_updated',
  'conversation.resolved': 'conversation_resolved',
  'conversation.opened': 'conversation_opened',
  'message.created': 'message_created',
};

const EQ = ['equal_to', 'not_equal_to'];
const TEXT = [...EQ, 'contains', 'does_not_contain'];
const PRESENCE = ['is_present', 'is_not_present'];

export type ValueKind = 'text' | 'status' | 'priority' | 'message_type' | 'id';
export type KeySource = 'message' | 'conversation' | 'conversation_attr' | 'contact' | 'contact_attr';

export interface KeySpec {
  operators: string[];
  values: ValueKind;
  source: KeySource;
  /** Where the value lives inside the source object. */
  path: string;
}

/** Chatwoot's allowed condition keys (AutomationRule#conditions_attributes). */
export const CONDITION_KEYS: Record<string, KeySpec> = {
  content: { operators: TEXT, values: 'text', source: 'message', path: 'content' },
  message_type: { operators: EQ, values: 'message_type', source: 'message', path: 'message_type' },
  status: { operators: EQ, values: 'status', source: 'conversation', path: 'status' },
  priority: { operators: EQ, values: 'priority', source: 'conversation', path: 'priority' },
  assignee_id: { operators: [...EQ, ...PRESENCE], values: 'id', source: 'conversation', path: 'assignee_id' },
  team_id: { operators: [...EQ, ...PRESENCE], values: 'id', source: 'conversation', path: 'team_id' },
  inbox_id: { operators: [...EQ, ...PRESENCE], values: 'id', source: 'conversation', path: 'inbox_id' },
  labels: { operators: [...EQ, ...PRESENCE], values: 'text', source: 'conversation', path: 'labels' },
  browser_language: { operators: EQ, values: 'text', source: 'conversation_attr', path: 'browser_language' },
  conversation_language: { operators: EQ, values: 'text', source: 'conversation_attr', path: 'conversation_language' },
  referer: { operators: TEXT, values: 'text', source: 'conversation_attr', path: 'referer' },
  mail_subject: { operators: TEXT, values: 'text', source: 'conversation_attr', path: 'mail_subject' },
  email: { operators: TEXT, values: 'text', source: 'contact', path: 'email' },
  phone_number: { operators: [...TEXT, 'starts_with'], values: 'text', source: 'contact', path: 'phone_number' },
  country_code: { operators: EQ, values: 'text', source: 'contact_attr', path: 'country_code' },
  city: { operators: TEXT, values: 'text', source: 'contact_attr', path: 'city' },
  company: { operators: TEXT, values: 'text', source: 'contact_attr', path: 'company_name' },
};

/** `custom_attribute_type` values and the operators a custom attribute accepts (any display type). */
export const CUSTOM_ATTRIBUTE_TYPES = ['conversation_attribute', 'contact_attribute'] as const;
export const CUSTOM_OPERATORS = [...TEXT, ...PRESENCE, 'starts_with', 'is_greater_than', 'is_less_than'];

/** Any key may use it: compares the event's `changes` (meaningful for conversation_updated). */
export const ATTRIBUTE_CHANGED = 'attribute_changed';
export const VALUELESS_OPERATORS = new Set(['is_present', 'is_not_present']);

export const STATUS_VALUES = ['open', 'resolved', 'pending', 'snoozed', 'all'];
export const PRIORITY_VALUES = ['low', 'medium', 'high', 'urgent', 'nil', 'none'];
export const MESSAGE_TYPES = ['incoming', 'outgoing', 'activity', 'template'];

/** Actions this service runs. Chatwoot's email and attachment actions are refused (no mailer, no blobs here). */
export const ACTION_NAMES = [
  'add_label',
  'remove_label',
  'assign_agent',
  'assign_team',
  'remove_assigned_agent',
  'remove_assigned_team',
  'change_priority',
  'change_status',
  'resolve_conversation',
  'open_conversation',
  'pending_conversation',
  'snooze_conversation',
  'mute_conversation',
  'send_message',
  'add_private_note',
  'send_webhook_event',
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

export const UNSUPPORTED_CHATWOOT_ACTIONS = ['send_email_to_team', 'send_email_transcript', 'send_attachment', 'add_sla'];

export const CONVERSATION_STATUSES = ['open', 'resolved', 'pending', 'snoozed'] as const;
export const PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
