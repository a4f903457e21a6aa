import type { RequestContext } from '@parley/shared';
import type { InboxRow } from '../common/rows';
import { isAdmin } from '../common/access';
import type { InboxResponse, PublicInboxResponse } from './schemas';
import { weekOf } from './working-hours';

/** Chatwoot's inbox partial for an API channel; the HMAC secret only for administrators. */
export function inboxData(i: InboxRow, ctx: RequestContext): InboxResponse {
  const out: InboxResponse = {
    id: i.id,
    account_id: i.account_id,
    avatar_url: i.avatar_url ?? '',
    channel_id: i.id,
    name: i.name,
    channel_type: i.channel_type,
    greeting_enabled: i.greeting_enabled,
    greeting_message: i.greeting_message,
    working_hours_enabled: i.working_hours_enabled,
    enable_email_collect: true,
    csat_survey_enabled: i.csat_survey_enabled,
    enable_auto_assignment: i.enable_auto_assignment,
    auto_assignment_config: {},
    out_of_office_message: i.out_of_office_message,
    working_hours: weekOf(i.working_hours),
    timezone: i.timezone,
    callback_webhook_url: null,
    allow_messages_after_resolved: i.allow_messages_after_resolved,
    lock_to_single_conversation: i.lock_to_single_conversation,
    sender_name_type: 'friendly',
    business_name: null,
    webhook_url: i.webhook_url,
    inbox_identifier: i.identifier,
    additional_attributes: i.additional_attributes,
    hmac_mandatory: i.hmac_mandatory,
    provider: null,
  };
  if (isAdmin(ctx)) out.hmac_token = i.hmac_token;
  return out;
}

/** `GET /public/api/v1/inboxes/{identifier}` (Chatwoot's public inbox view). */
export function publicInboxData(i: InboxRow): PublicInboxResponse {
  return {
    identifier: i.identifier,
    identity_validation_enabled: i.hmac_mandatory,
    name: i.name,
    timezone: i.timezone,
    working_hours: weekOf(i.working_hours),
    working_hours_enabled: i.working_hours_enabled,
    csat_survey_enabled: i.csat_survey_enabled,
    greeting_enabled: i.greeting_enabled,
  };
}
