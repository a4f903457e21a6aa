import { Client } from 'pg';
import type { EventEnvelope } from '@parley/shared';
import { createBus, waitFor, type TestBus } from '@parley/testkit';
import { startStack, type Stack } from '../../support/stack';
import { seedAccount, type SeededAccount, type SeededUser } from '../../support/factories';
import { client } from '../../support/http';
import { createApiInbox } from '../../support/contacts';
import { RETIRED_BINDINGS } from '@parley/reports';
import { History, shuffled } from './history';

export const DAY = 86_400;
/** A Sunday, midnight UTC. */
export const T0 = Date.UTC(2025, 2, 2, 0, 0, 0) / 1000;

export interface Scripted {
  stack: Stack;
  bus: TestBus;
  call: ReturnType<typeof client>;
  acc: SeededAccount;
  other: SeededAccount;
  /** Agent X and agent Y of `acc`. */
  x: SeededUser;
  y: SeededUser;
  /** `acc`'s inbox every conversation is in, and its teams A and B (created at their owners). */
  inboxId: number;
  teamA: number;
  teamB: number;
  /** `other`'s inbox and team (another account's ids). */
  otherInboxId: number;
  otherTeam: number;
  /** The events of `acc`, in time order. */
  events: History['events'];
  stop(): Promise<void>;
}

/**
 * The scripted history of the reports tests (times in seconds after T0), published shuffled with
 * one event twice, plus another account's conversation; resolves once the reports have it all.
 *
 * The inbox and the teams are created at their owners (the conversations service, the gateway):
 * reports check a scoped id against the account's.
 *
 * 1: X's conversation (team A, label billing): incoming 60, a note 100, X replies 160, incoming 200,
 *    X replies 500, resolved 600.
 * 2: X's (team B): incoming 3600, an automation reply 3720, reassigned to Y 3900, Y replies 4000,
 *    resolved 4600; next day incoming and reopened at DAY, Y replies DAY+50, resolved DAY+100.
 * 3: pending (a bot's) 7200: incoming 7200, bot reply 7210, hand-off 7300, assigned X 7310, X replies 7360.
 * 4: created 9000, nothing else.
 */
export async function scriptedHistory(): Promise<Scripted> {
  const stack = await startStack({ only: ['conversations', 'reports'] });
  const bus = createBus(stack.env.namespace);
  const call = client(stack.gatewayUrl);
  const acc = await seedAccount(stack);
  const other = await seedAccount(stack);
  const x = acc.agent;
  const y = await acc.addUser('agent');
  const team = async (a: SeededAccount, name: string): Promise<number> => {
    const res = await call('POST', `/api/v1/accounts/${a.accountId}/teams`, { token: a.admin.token, body: { name } });
    if (res.status !== 200) throw new Error(`team create answered ${res.status}: ${res.text}`);
    return res.body.id as number;
  };
  const teamA = await team(acc, 'Team A');
  const teamB = await team(acc, 'Team B');
  const otherTeam = await team(other, 'Other team');
  const inboxId = (await createApiInbox(call, acc)).id;
  const otherInboxId = (await createApiInbox(call, other)).id;
  const h = new History(acc.accountId, T0, inboxId);
  h.label(11, 0, 'billing');
  h.create(1, 0, { assignee_id: x.userId, team_id: teamA }).labels(1, 1, ['billing']);
  h.incoming(1, 60).note(1, 100, x.userId).reply(1, 160, x.userId).incoming(1, 200).reply(1, 500, x.userId).status(1, 600, 'resolved');
  h.create(2, 3600, { assignee_id: x.userId, team_id: teamB });
  h.incoming(2, 3600).automationReply(2, 3720).assign(2, 3900, y.userId).reply(2, 4000, y.userId).status(2, 4600, 'resolved');
  h.incoming(2, DAY).status(2, DAY, 'open').activity(2, DAY).reply(2, DAY + 50, y.userId).status(2, DAY + 100, 'resolved');
  h.create(3, 7200, { status: 'pending' });
  h.incoming(3, 7200).botReply(3, 7210, 4).status(3, 7300, 'open', { type: 'agent_bot', id: 4 }).assign(3, 7310, x.userId).reply(3, 7360, x.userId);
  h.create(4, 9000);
  const o = new History(other.accountId, T0, otherInboxId);
  o.create(1, 0, { assignee_id: other.agent.userId, team_id: otherTeam }).incoming(1, 10).reply(1, 20, other.agent.userId).status(1, 30, 'resolved');

  const events = shuffled(h.events);
  await bus.publish(...events, events[3]!, ...o.events);
  await waitForReports(stack, [...h.events, ...o.events]);
  return {
    stack,
    bus,
    call,
    acc,
    other,
    x,
    y,
    inboxId,
    teamA,
    teamB,
    otherInboxId,
    otherTeam,
    events: h.events,
    async stop() {
      await bus.close();
      await stack.stop();
    },
  };
}

/**
 * Types the history writes that the reports queue is not bound to (they never arrive): the
 * labels, assignee and team events come with a conversation.updated of the same snapshot.
 */
const UNBOUND = new Set(['conversation.resolved', 'conversation.opened', ...RETIRED_BINDINGS]);

/** Waits until the reports consumer has committed every one of these events. */
export async function waitForReports(stack: Stack, events: EventEnvelope[]): Promise<void> {
  // Activity messages are acked without a transaction (nothing to record).
  const ids = events.filter((e) => !UNBOUND.has(e.type) && !(e.type === 'message.created' && e.data['message_type'] === 2)).map((e) => e.id);
  const db = new Client({ connectionString: stack.env.db.url });
  await db.connect();
  try {
    await waitFor(
      async () => {
        const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM reports.processed_events WHERE event_id = ANY($1::uuid[])', [ids]);
        return Number(r.rows[0]?.n) === ids.length ? true : null;
      },
      { what: `the reports consumer to commit ${ids.length} events`, timeoutMs: 30_000 },
    );
  } finally {
    await db.end();
  }
}
