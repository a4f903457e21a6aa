import { z } from 'zod';
import { ValidationError } from '@parley/shared';

export const METRICS = [
  'conversations_count',
  'incoming_messages_count',
  'outgoing_messages_count',
  'avg_first_response_time',
  'avg_resolution_time',
  'reply_time',
  'resolutions_count',
  'bot_resolutions_count',
  'bot_handoffs_count',
] as const;
export type Metric = (typeof METRICS)[number];

export const SCOPE_TYPES = ['account', 'agent', 'inbox', 'label', 'team'] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];

export const GROUP_BY = ['hour', 'day', 'week', 'month', 'year'] as const;
export type GroupBy = (typeof GROUP_BY)[number];

/** Longest window a report covers: a year (a leap year's 366 days). */
export const MAX_WINDOW_SECONDS = 366 * 86_400;

/**
 * What the report routes take, for the API document. Every value is read as text here: the route
 * kit would answer a failure 400, and reports answer 422 (Chatwoot's validation status), so
 * `readReportQuery` checks the values.
 */
export const reportQueryDoc = z.looseObject({
  metric: z.string().optional().describe(`The timeseries metric (required by \`reports\`): ${METRICS.join(', ')}`),
  type: z.string().optional().describe(`What the numbers are about: ${SCOPE_TYPES.join(', ')}; default account`),
  id: z.string().optional().describe('The agent, inbox, label or team id (required unless `type` is `account`)'),
  since: z.string().optional().describe('Start of the window, unix seconds (included); required'),
  until: z.string().optional().describe('End of the window, unix seconds (excluded); required; at most a year after `since`'),
  group_by: z.string().optional().describe(`Bucket size of the timeseries: ${GROUP_BY.join(', ')}; default day`),
  business_hours: z.string().optional().describe("`true`: average only the time inside the inbox's working hours (`value_in_business_hours`)"),
  timezone_offset: z.string().optional().describe('Hours east of UTC the buckets start in (e.g. `5.5`, `-3`); default 0'),
});

export interface ReportQuery {
  metric: Metric | null;
  type: ScopeType;
  id: number | null;
  since: Date;
  until: Date;
  groupBy: GroupBy;
  businessHours: boolean;
  /** Seconds east of UTC. */
  offsetSeconds: number;
}

type Raw = Record<string, unknown>;

function one(raw: Raw, key: string): string | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : '\u0000'; // repeated or nested: malformed
}

/**
 * Checks a report query; every problem is one item of a 422 naming its field. `needMetric` for the
 * timeseries; `needId` false where `type`/`id` are not read.
 */
export function readReportQuery(raw: Raw, opts: { needMetric?: boolean; scoped?: boolean } = {}): ReportQuery {
  const items: Array<{ field: string; message: string; code: string }> = [];
  const bad = (field: string, message: string, code = 'invalid') => items.push({ field, message, code });

  let metric: Metric | null = null;
  const m = one(raw, 'metric');
  if (opts.needMetric) {
    if (m === undefined || m === '') bad('metric', `is required (one of ${METRICS.join(', ')})`, 'blank');
    else if (!(METRICS as readonly string[]).includes(m)) bad('metric', `is not a metric (one of ${METRICS.join(', ')})`, 'inclusion');
    else metric = m as Metric;
  }

  let type: ScopeType = 'account';
  let id: number | null = null;
  if (opts.scoped !== false) {
    const t = one(raw, 'type');
    if (t !== undefined && t !== '') {
      if (!(SCOPE_TYPES as readonly string[]).includes(t)) bad('type', `is not a report type (one of ${SCOPE_TYPES.join(', ')})`, 'inclusion');
      else type = t as ScopeType;
    }
    const rawId = one(raw, 'id');
    if (type !== 'account') {
      if (rawId === undefined || rawId === '') bad('id', `is required when type is ${type}`, 'blank');
      else if (!/^[0-9]{1,10}$/.test(rawId) || Number(rawId) < 1 || Number(rawId) > 2_147_483_647) bad('id', 'must be a positive integer');
      else id = Number(rawId);
    }
  }

  const time = (key: 'since' | 'until'): Date | null => {
    const v = one(raw, key);
    if (v === undefined || v === '') {
      bad(key, 'is required (unix seconds)', 'blank');
      return null;
    }
    if (!/^[0-9]{1,11}$/.test(v)) {
      bad(key, 'must be unix seconds');
      return null;
    }
    return new Date(Number(v) * 1000);
  };
  const since = time('since');
  const until = time('until');
  if (since && until) {
    if (until <= since) bad('until', 'must be after since');
    else if ((until.getTime() - since.getTime()) / 1000 > MAX_WINDOW_SECONDS) bad('until', 'must be at most a year after since', 'too_long');
  }

  const g = one(raw, 'group_by');
  let groupBy: GroupBy = 'day';
  if (g !== undefined && g !== '') {
    if (!(GROUP_BY as readonly string[]).includes(g)) bad('group_by', `must be one of ${GROUP_BY.join(', ')}`, 'inclusion');
    else groupBy = g as GroupBy;
  }

  const bh = one(raw, 'business_hours');
  let businessHours = false;
  if (bh !== undefined && bh !== '') {
    if (!['true', 'false', '1', '0'].includes(bh)) bad('business_hours', 'must be true or false');
    else businessHours = bh === 'true' || bh === '1';
  }

  const tz = one(raw, 'timezone_offset');
  let offsetSeconds = 0;
  if (tz !== undefined && tz !== '') {
    const hours = /^-?[0-9]{1,2}(\.[0-9]{1,2})?$/.test(tz) ? Number(tz) : NaN;
    if (!Number.isFinite(hours) || hours < -12 || hours > 14) bad('timezone_offset', 'must be hours between -12 and 14');
    else offsetSeconds = Math.round(hours * 3600);
  }

  if (items.length > 0) throw new ValidationError(items.map((i) => `${i.field} ${i.message}`).join(', '), items);
  return { metric, type, id, since: since as Date, until: until as Date, groupBy, businessHours, offsetSeconds };
}
