import type { Redis } from '@parley/shared';

/** What one log entry carries: an event for subscribers, or a control note for the replicas. */
export type EntryBody = EventEntry | ControlEntry;

/** An event as subscribers get it, with who in the stream may see it. */
export interface EventEntry {
  kind: 'event';
  event: string;
  data: Record<string, unknown>;
  /** Account streams: the conversation's inbox (agents who are not members do not get it); absent for every user. */
  inbox_id?: number;
  /** Contact streams: the conversation's contact inbox; absent for every contact inbox of the contact. */
  contact_inbox_id?: number;
  /** Account streams: the one user it is for (`conversation.mentioned`); absent for every user who may see it. */
  only_user?: number;
  /** The subscriber who caused it and must not get it back (the typist). */
  except?: { type: 'user' | 'contact'; id: number };
}

/** A change to who may see what, applied by every replica to its live subscriptions. */
export interface ControlEntry {
  kind: 'control';
  action: 'revoke_user' | 'revoke_token' | 'user_role' | 'inbox_added' | 'inbox_removed' | 'revoke_contact' | 'revoke_all' | 'genesis';
  user_id?: number;
  /** `revoke_token`: the SHA-256 of the user token that no longer works. */
  token_sha256?: string;
  contact_id?: number;
  inbox_id?: number;
  role?: 'agent' | 'administrator';
}

export interface StreamEntry {
  /** The Redis Streams id (`<ms>-<seq>`): increasing within a stream. */
  id: string;
  body: EntryBody;
  /** An event's `message` of the data frame (`{event, data, id}`) as UTF-8, made once for all its subscribers. */
  message?: Buffer;
  /** The cursor `isAfter` was last asked about, and its answer. */
  lastCursor?: string;
  afterLastCursor?: boolean;
}

/**
 * Whether the entry comes after a subscriber's cursor. Every subscriber of a stream asks, and the
 * live ones share their cursor (the entry before this one, the same string): the answer for the
 * last cursor asked is kept on the entry, so a thousand subscribers compare the ids once, not a
 * thousand times (5% of the replica's time at 1,000 subscribers, docs/benchmarks.md).
 */
export function isAfter(e: StreamEntry, cursor: string): boolean {
  if (e.lastCursor !== cursor) {
    e.lastCursor = cursor;
    e.afterLastCursor = compareIds(e.id, cursor) > 0;
  }
  return e.afterLastCursor === true;
}

const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;

export function isStreamId(s: string): boolean {
  return STREAM_ID.test(s);
}

/** Orders the decimal integers written without leading zeros in a[a0, a1) and b[b0, b1): by length, then digit by digit, in place. */
function compareDigits(a: string, a0: number, a1: number, b: string, b0: number, b1: number): number {
  const n = a1 - a0;
  if (n !== b1 - b0) return n < b1 - b0 ? -1 : 1;
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(a0 + i) - b.charCodeAt(b0 + i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Orders two stream ids (`<ms>-<seq>`): without BigInt or a slice when it can. */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a.indexOf('-');
  const bi = b.indexOf('-');
  // Redis writes no leading zeros; a client's id might (`0001-0`): then the slow path.
  if (ai > 0 && bi > 0 && (a[0] !== '0' || ai === 1) && (b[0] !== '0' || bi === 1) && (a[ai + 1] !== '0' || a.length === ai + 2) && (b[bi + 1] !== '0' || b.length === bi + 2)) {
    return compareDigits(a, 0, ai, b, 0, bi) || compareDigits(a, ai + 1, a.length, b, bi + 1, b.length);
  }
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const d = BigInt(am) - BigInt(bm) || BigInt(as) - BigInt(bs);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The first entry of every stream: a stream that starts again (Redis lost its data) says so. */
export const GENESIS = JSON.stringify({ kind: 'control', action: 'genesis' });

/**
 * Appends an event's entries once: the event id is claimed with SET NX in the same script as the
 * XADDs, so a redelivered event (the consumer's commit failed after the append) adds nothing.
 * A stream that does not exist gets a genesis entry first, so a reader that followed an earlier
 * stream of that name (before a Redis restart without persistence, or an eviction) can tell that
 * entries may be gone instead of silently skipping them. Each stream keeps at most MAXLEN ~
 * entries and none older than MINID ~.
 */
const APPEND = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 0 then redis.call('XADD', KEYS[i], '*', 'e', ARGV[#ARGV]) end
  redis.call('XADD', KEYS[i], 'MAXLEN', '~', ARGV[2], '*', 'e', ARGV[i + 2])
  redis.call('XTRIM', KEYS[i], 'MINID', '~', ARGV[3])
end
return 1`;

/** Begins a stream that does not exist (its genesis entry), as the append script would. */
const BEGIN = `if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('XADD', KEYS[1], '*', 'e', ARGV[1]) end return 1`;

/** The append script as a command of the client (EVALSHA, loaded on first use). */
const APPEND_COMMAND = 'parleyRealtimeAppend';

export interface StreamLogOptions {
  redis: Redis;
  namespace: string;
  maxEvents: number;
  retentionMs: number;
}

type XEntries = Array<[string, string[]]>;

/** The per-stream event log in Redis Streams: what resume reads. */
export class StreamLog {
  constructor(private readonly opts: StreamLogOptions) {}

  accountStream(accountId: number): string {
    return `${this.opts.namespace}rt:account:${accountId}`;
  }

  contactStream(accountId: number, contactId: number): string {
    return `${this.opts.namespace}rt:contact:${accountId}:${contactId}`;
  }

  /** Appends each entry to its stream, once per event id; false when the event was appended before. */
  async append(eventId: string, entries: Array<{ stream: string; body: EntryBody }>): Promise<boolean> {
    return (await this.appendMany([{ eventId, entries }]))[0] ?? false;
  }

  /**
   * `append` for several events, in order, in one round trip (a pipeline of the script by its
   * SHA): what a batch of the fan-out consumer appends. Answers, per event, whether it was new;
   * throws if any append failed (the batch is then handled again, and the event ids keep what
   * did go in from going in twice).
   */
  async appendMany(events: Array<{ eventId: string; entries: Array<{ stream: string; body: EntryBody }> }>): Promise<boolean[]> {
    const redis = this.opts.redis as Redis & { [APPEND_COMMAND]?: unknown };
    if (!redis[APPEND_COMMAND]) redis.defineCommand(APPEND_COMMAND, { lua: APPEND });
    const ttl = String(Math.ceil((this.opts.retentionMs * 2) / 1000));
    const minId = `${Math.max(0, Date.now() - this.opts.retentionMs)}-0`;
    const pipeline = redis.pipeline() as unknown as Record<string, (...args: string[]) => void> & { exec(): Promise<Array<[Error | null, unknown]> | null> };
    const sent: number[] = [];
    events.forEach(({ eventId, entries }, i) => {
      if (entries.length === 0) return;
      const keys = [`${this.opts.namespace}rt:seen:${eventId}`, ...entries.map((e) => e.stream)];
      (pipeline[APPEND_COMMAND] as (...args: string[]) => void)(String(keys.length), ...keys, ttl, String(this.opts.maxEvents), minId, ...entries.map((e) => JSON.stringify(e.body)), GENESIS);
      sent.push(i);
    });
    const out = events.map(() => false);
    if (sent.length === 0) return out;
    const results = (await pipeline.exec()) ?? [];
    for (const [k, [err, r]] of results.entries()) {
      if (err) throw err;
      out[sent[k] as number] = r === 1;
    }
    return out;
  }

  /** The id of the newest entry ever added to the stream (`0-0` for a stream never written). */
  async lastId(stream: string): Promise<string> {
    const info = await this.info(stream);
    return info?.lastGenerated ?? '0-0';
  }

  /**
   * Where a subscription that last saw `afterId` goes on from. Entries are contiguous from the
   * oldest one left, so an id at or past it (and not ahead of the newest) resumes (`resume`; `0-0`,
   * a client that had nothing, too while nothing was trimmed). An id before it:
   * - `restarted`: the stream started again after that id (Redis lost its data: the stream begins
   *   with a genesis entry newer than every id the old one gave) and nothing of the new stream was
   *   trimmed, so every entry it holds came after the client's id. The client is told that what the
   *   lost stream held after its id may be gone, and goes on from the genesis entry (`at`): it gets
   *   the whole new stream. A lost stream not written again yet is begun here (its genesis entry),
   *   so the client is told at once, with an id that comes after its own;
   * - `gone`: trimming removed what came after it, or the id is ahead of the stream (one the log
   *   never gave): the client is told to refetch and goes on from now.
   */
  async resumeFrom(stream: string, afterId: string): Promise<{ kind: 'resume' } | { kind: 'restarted'; at: string } | { kind: 'gone' }> {
    let info = await this.info(stream);
    if (!info) {
      if (afterId === '0-0') return { kind: 'resume' };
      await this.opts.redis.eval(BEGIN, 1, stream, GENESIS);
      info = await this.info(stream);
      if (!info) return { kind: 'gone' };
    }
    const vsLast = compareIds(afterId, info.lastGenerated);
    if (vsLast >= 0) return vsLast === 0 ? { kind: 'resume' } : { kind: 'gone' };
    if (info.firstEntry !== null && compareIds(afterId, info.firstEntry) >= 0) return { kind: 'resume' };
    if (info.entriesAdded > info.length || info.firstEntry === null) return { kind: 'gone' };
    return afterId === '0-0' ? { kind: 'resume' } : { kind: 'restarted', at: info.firstEntry };
  }

  /** Up to `count` entries after `afterId`, oldest first. */
  async after(stream: string, afterId: string, count: number): Promise<StreamEntry[]> {
    const rows = (await this.opts.redis.xrange(stream, `(${afterId}`, '+', 'COUNT', count)) as XEntries;
    return rows.map(toEntry);
  }

  private async info(stream: string): Promise<{ lastGenerated: string; entriesAdded: number; length: number; firstEntry: string | null } | null> {
    let raw: unknown[];
    try {
      raw = (await this.opts.redis.call('XINFO', 'STREAM', stream)) as unknown[];
    } catch (err) {
      if (/no such key/i.test((err as Error).message)) return null;
      throw err;
    }
    const f = new Map<string, unknown>();
    for (let i = 0; i + 1 < raw.length; i += 2) f.set(String(raw[i]), raw[i + 1]);
    const first = f.get('first-entry');
    return {
      lastGenerated: String(f.get('last-generated-id') ?? '0-0'),
      entriesAdded: Number(f.get('entries-added') ?? 0),
      length: Number(f.get('length') ?? 0),
      firstEntry: Array.isArray(first) ? String(first[0]) : null,
    };
  }
}

export function toEntry([id, fields]: [string, string[]]): StreamEntry {
  const i = fields.indexOf('e');
  return { id, body: JSON.parse(fields[i + 1] ?? '{}') as EntryBody };
}
