import type { Grant } from '../auth/grants';
import type { StreamHub, StreamListener } from '../streams/hub';
import { compareIds, isAfter, type EntryBody, type StreamEntry, type StreamLog } from '../streams/log';

/** What a subscription sends through its connection. */
export interface SubscriptionOutput {
  /** A data frame `{identifier, message}`. */
  message(identifier: string, message: Record<string, unknown>): void;
  /** A data frame of an event entry (its `message` serialised once, whoever gets it). */
  event(identifier: string, entry: StreamEntry & { body: { kind: 'event' } }): void;
  /** The subscription was ended by the server (access revoked): `reject_subscription`. */
  ended(identifier: string): void;
}

/**
 * One `RoomChannel` subscription: follows its stream from where the client left off
 * (`last_event_id`) or from now, sends each entry it may see once and in the stream's order,
 * and applies the control entries that change what it may see. Entries the hub reads while the
 * replay runs wait in a buffer; the cursor (last id handled) drops whatever both paths bring.
 */
export class Subscription implements StreamListener {
  private cursor: string;
  private buffer: StreamEntry[] | null = [];
  private closed = false;
  /** Control entries at or before this id are already in the grant (checked after them). */
  private readonly grantedAt: string;

  constructor(
    readonly identifier: string,
    private grant: Grant,
    readonly stream: string,
    private readonly out: SubscriptionOutput,
    start: { cursor: string; grantedAt: string },
  ) {
    this.cursor = start.cursor;
    this.grantedAt = start.grantedAt;
  }

  /** Joins the hub, replays what the log holds after the cursor, then goes live. */
  async start(hub: StreamHub, log: StreamLog, batch: number): Promise<void> {
    hub.add(this.stream, this, this.cursor);
    for (;;) {
      if (this.closed) return;
      const entries = await log.after(this.stream, this.cursor, batch);
      this.handle(entries);
      if (entries.length < batch) break;
    }
    const buffered = this.buffer ?? [];
    this.buffer = null;
    this.handle(buffered);
  }

  push(_stream: string, entries: StreamEntry[]): void {
    if (this.buffer) this.buffer.push(...entries);
    else this.handle(entries);
  }

  close(hub: StreamHub): void {
    this.closed = true;
    hub.remove(this.stream, this);
  }

  /** What the subscription may see now (control entries change it). */
  get grantNow(): Grant {
    return this.grant;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private handle(entries: StreamEntry[]): void {
    for (const e of entries) {
      if (this.closed) return;
      if (!isAfter(e, this.cursor)) continue;
      const previous = this.cursor;
      this.cursor = e.id;
      if (e.body.kind === 'control' && e.body.action === 'genesis') {
        // The stream started again after this subscription had followed it (Redis lost the log):
        // entries it had not read yet may be gone, so the client refetches; new ones follow.
        if (previous !== '0-0') this.out.message(this.identifier, { event: 'resync.required', data: { account_id: this.grant.accountId, last_event_id: previous }, id: e.id });
        continue;
      }
      if (e.body.kind === 'control') {
        if (compareIds(e.id, this.grantedAt) > 0) this.apply(e.body);
        continue;
      }
      if (!this.sees(e.body)) continue;
      this.out.event(this.identifier, e as StreamEntry & { body: { kind: 'event' } });
    }
  }

  private sees(body: Extract<EntryBody, { kind: 'event' }>): boolean {
    const g = this.grant;
    if (body.except && body.except.type === g.kind && body.except.id === (g.kind === 'user' ? g.userId : g.contactId)) return false;
    if (body.only_user !== undefined && (g.kind !== 'user' || g.userId !== body.only_user)) return false;
    if (g.kind === 'user') return body.inbox_id === undefined || g.role === 'administrator' || g.inboxIds.includes(body.inbox_id);
    return body.contact_inbox_id === undefined || g.hmacVerified || body.contact_inbox_id === g.contactInboxId;
  }

  private apply(c: Extract<EntryBody, { kind: 'control' }>): void {
    const g = this.grant;
    if (c.action === 'revoke_all') return this.end();
    if (g.kind === 'contact') {
      if (c.action === 'revoke_contact' && c.contact_id === g.contactId) this.end();
      return;
    }
    if (c.user_id !== g.userId) return;
    switch (c.action) {
      case 'revoke_user':
        return this.end();
      case 'revoke_token':
        if (c.token_sha256 === g.tokenSha) this.end();
        return;
      case 'user_role':
        if (c.role) this.grant = { ...g, role: c.role };
        return;
      case 'inbox_added':
        if (c.inbox_id !== undefined && !g.inboxIds.includes(c.inbox_id)) this.grant = { ...g, inboxIds: [...g.inboxIds, c.inbox_id] };
        return;
      case 'inbox_removed':
        this.grant = { ...g, inboxIds: g.inboxIds.filter((id) => id !== c.inbox_id) };
        return;
      default:
        return;
    }
  }

  private end(): void {
    if (this.closed) return;
    this.out.ended(this.identifier);
  }
}
