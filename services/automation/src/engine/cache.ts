import type { Executor } from '@parley/shared';
import { listActiveRules, ruleVersion, type RuleRow } from '../rules/repository';
import { compileCondition, type CompiledCondition } from './conditions';

export interface CompiledRule {
  rule: RuleRow;
  conditions: CompiledCondition[];
  needsContact: boolean;
}

interface Entry {
  version: number;
  byEvent: Map<string, CompiledRule[]>;
}

/**
 * The active rules of each account, compiled and grouped by event name, kept in memory.
 * Every rule change bumps the account's row in `rule_versions` in the same transaction, so
 * before using its entry a replica reads that one row (a primary-key lookup) and reloads
 * when it moved: a change made through any replica is seen by the next event everywhere.
 * Least recently used accounts are dropped past `maxAccounts`.
 */
export class RuleCache {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly maxAccounts: number) {}

  async rulesFor(db: Executor, accountId: number, eventName: string): Promise<CompiledRule[]> {
    return (await this.forAccount(db, accountId))(eventName);
  }

  /** The account's active rules by event name, checked against its version once (a batch asks once per account). */
  async forAccount(db: Executor, accountId: number): Promise<(eventName: string) => CompiledRule[]> {
    // Version first, rules second: the rules read are at least as new as the version kept.
    const version = await ruleVersion(db, accountId);
    let entry = this.entries.get(accountId);
    if (!entry || entry.version !== version) {
      entry = { version, byEvent: group(version === 0 ? [] : await listActiveRules(db, accountId)) };
    }
    // Re-insert: Map order is the LRU order.
    this.entries.delete(accountId);
    this.entries.set(accountId, entry);
    while (this.entries.size > this.maxAccounts) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    const byEvent = entry.byEvent;
    return (eventName) => byEvent.get(eventName) ?? [];
  }

  get size(): number {
    return this.entries.size;
  }
}

function group(rows: RuleRow[]): Map<string, CompiledRule[]> {
  const out = new Map<string, CompiledRule[]>();
  for (const rule of rows) {
    const conditions = rule.conditions.map(compileCondition);
    const compiled = { rule, conditions, needsContact: conditions.some((c) => c.needsContact) };
    out.set(rule.event_name, [...(out.get(rule.event_name) ?? []), compiled]);
  }
  return out;
}
