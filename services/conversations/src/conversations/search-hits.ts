import type { Pool } from 'pg';
import { withTransaction, type Executor, type Logger } from '@parley/shared';

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The ILIKE pattern `q` matches message content with (and the key of its search hits). */
export function qPattern(q: string): string {
  return `%${escapeLike(q)}%`;
}

/** How long a registration waits for the account's search lock (writers queue behind it meanwhile). */
const LOCK_WAIT_MS = 250;

export interface SearchHitsOptions {
  /** A `q` matching at least this many conversations registers its pattern. */
  minConversations: number;
  /** Patterns an account may have (each is one more ILIKE per message written). */
  maxPatterns: number;
}

/**
 * Which `q` patterns have search hits (migration 009), per account. A registered pattern stays
 * registered, so a positive answer is kept for good; a negative one for a few seconds (another
 * replica may register it; until this one knows, it reads messages, which answers the same).
 */
export class SearchHits {
  private readonly known = new Map<number, Set<string>>();
  private readonly absent = new Map<string, number>();
  private readonly registering = new Set<string>();
  /** When a pattern (or, with the pattern '', an account at its cap) may be tried again after a failed or refused registration. */
  private readonly retryAt = new Map<string, number>();

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    private readonly opts: SearchHitsOptions,
  ) {}

  /** Whether the account's pattern has hits to read. */
  async registered(db: Executor, accountId: number, pattern: string): Promise<boolean> {
    if (this.known.get(accountId)?.has(pattern)) return true;
    const key = `${accountId}\u0000${pattern}`;
    const until = this.absent.get(key);
    if (until !== undefined && until > Date.now()) return false;
    const { rows } = await db.query('SELECT 1 FROM search_patterns WHERE account_id = $1 AND pattern = $2', [accountId, pattern]);
    if (rows.length > 0) {
      this.remember(accountId, pattern);
      return true;
    }
    if (this.absent.size > 10_000) this.absent.clear();
    this.absent.set(key, Date.now() + 5_000);
    return false;
  }

  /** After a search read messages: registers the pattern in the background when it matched enough conversations. */
  consider(accountId: number, pattern: string, conversations: number): void {
    if (conversations < this.opts.minConversations) return;
    const key = `${accountId}\u0000${pattern}`;
    const now = Date.now();
    if (this.registering.has(key) || (this.retryAt.get(key) ?? 0) > now || (this.retryAt.get(`${accountId}\u0000`) ?? 0) > now) return;
    this.registering.add(key);
    void this.register(accountId, pattern)
      .then((ok) => {
        if (!ok) this.retryAt.set(key, Date.now() + 60_000);
      })
      .catch((err: unknown) => {
        this.retryAt.set(key, Date.now() + 60_000);
        this.log.warn({ err: (err as Error).message, accountId }, 'search pattern registration failed');
      })
      .finally(() => {
        this.registering.delete(key);
        if (this.retryAt.size > 10_000) this.retryAt.clear();
      });
  }

  /**
   * Registers the pattern and writes its hits, under the account's search lock held exclusively:
   * message and conversation writers take it shared in their triggers, so every write is either
   * seen here or sees the pattern. Writers of the account wait while the hits are written (once a
   * pattern), and for at most LOCK_WAIT_MS while this waits for the lock: a registration that
   * cannot have it by then gives up (false) and is tried again later. Answers whether the pattern
   * is registered now.
   */
  async register(accountId: number, pattern: string): Promise<boolean> {
    // The cap and the pattern, read without the lock (a full account never takes it).
    const { rows: seen } = await this.pool.query<{ n: number; has: boolean }>(
      'SELECT count(*)::int AS n, coalesce(bool_or(pattern = $2), false) AS has FROM search_patterns WHERE account_id = $1',
      [accountId, pattern],
    );
    if (!seen[0]?.has && (seen[0]?.n ?? 0) >= this.opts.maxPatterns) {
      this.retryAt.set(`${accountId}\u0000`, Date.now() + 60_000);
      return false;
    }
    let done: 'added' | 'known' | 'full' | 'busy';
    try {
      done = seen[0]?.has
        ? 'known'
        : await withTransaction(this.pool, async (tx): Promise<'added' | 'known' | 'full'> => {
            await tx.query(`SET LOCAL lock_timeout = '${LOCK_WAIT_MS}ms'`);
            await tx.query(`SELECT pg_advisory_xact_lock(hashtext('conversations:search_patterns'), $1)`, [accountId]);
            await tx.query(`SET LOCAL lock_timeout = 0`);
            const { rows } = await tx.query<{ n: number; has: boolean }>(
              'SELECT count(*)::int AS n, coalesce(bool_or(pattern = $2), false) AS has FROM search_patterns WHERE account_id = $1',
              [accountId, pattern],
            );
            if (rows[0]?.has) return 'known';
            if ((rows[0]?.n ?? 0) >= this.opts.maxPatterns) return 'full';
            await tx.query('INSERT INTO search_patterns (account_id, pattern) VALUES ($1, $2)', [accountId, pattern]);
            await tx.query(
              `INSERT INTO search_hits (account_id, pattern, conversation_id, inbox_id, team_id, assignee_id)
               SELECT c.account_id, $2, c.id, c.inbox_id, c.team_id, c.assignee_id FROM conversations c
                WHERE c.account_id = $1
                  AND c.id IN (SELECT m.conversation_id FROM messages m WHERE m.content ILIKE $2 AND m.message_type IN (0, 1) AND m.account_id = $1)`,
              [accountId, pattern],
            );
            return 'added';
          });
    } catch (err) {
      // lock_not_available: writers held the lock; another time.
      if ((err as { code?: string }).code !== '55P03') throw err;
      done = 'busy';
    }
    if (done === 'full' || done === 'busy') return false;
    this.remember(accountId, pattern);
    // Planner statistics for the new rows (the page's plan depends on how many hits a pattern has).
    if (done === 'added') await this.pool.query('ANALYZE search_hits');
    return true;
  }

  private remember(accountId: number, pattern: string): void {
    let set = this.known.get(accountId);
    if (!set) this.known.set(accountId, (set = new Set()));
    set.add(pattern);
    this.absent.delete(`${accountId}\u0000${pattern}`);
  }
}
