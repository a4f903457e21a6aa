import { deriveReportingEvents, type Fact } from '../src/events/timeline';

const t0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const at = (s: number) => new Date(t0 + s * 1000);
const base = { inbox_id: 1, assignee_id: null, team_id: null, business_hours: null, automated: false };
const msg = (s: number, fields: Partial<Fact>): Fact => ({ ...base, kind: 'message', at: at(s), message_type: 1, private: false, sender_type: 'User', sender_id: 7, status_from: null, status_to: null, actor_type: null, ...fields });
const incoming = (s: number) => msg(s, { message_type: 0, sender_type: 'Contact', sender_id: 3 });
const bot = (s: number) => msg(s, { sender_type: 'AgentBot', sender_id: 4 });
const status = (s: number, from: string, to: string, actor = 'user'): Fact => ({ ...base, kind: 'status', at: at(s), message_type: null, private: null, sender_type: null, sender_id: null, status_from: from, status_to: to, actor_type: actor });
const names = (facts: Fact[]) => deriveReportingEvents(at(0), facts).map((e) => e.name);

describe('reporting events: bot resolutions (Chatwoot: a bot inbox, and no outgoing message from a user)', () => {
  it('when a bot replied and the conversation is resolved without a person, then it is also a bot resolution', () => {
    expect(names([incoming(1), bot(2), status(3, 'pending', 'resolved', 'agent_bot')])).toEqual(['conversation_resolved', 'conversation_bot_resolved']);
    expect(names([incoming(1), status(3, 'pending', 'resolved', 'agent_bot')])).toEqual(['conversation_resolved', 'conversation_bot_resolved']);
  });

  it('when a person wrote anything outgoing before, a private note included, then it is not the bot\'s', () => {
    expect(names([incoming(1), bot(2), msg(3, { private: true }), status(4, 'pending', 'resolved', 'agent_bot')])).toEqual(['conversation_resolved']);
    expect(names([incoming(1), bot(2), msg(3, {}), status(4, 'open', 'resolved')])).toEqual(['first_response', 'conversation_resolved']); // the bot's reply ended the wait
    // A note after the resolution does not undo it; the next resolution is no longer the bot's.
    expect(names([incoming(1), bot(2), status(3, 'pending', 'resolved', 'agent_bot'), msg(4, { private: true }), status(5, 'resolved', 'open'), status(6, 'open', 'resolved', 'agent_bot')])).toEqual([
      'conversation_resolved',
      'conversation_bot_resolved',
      'conversation_opened',
      'conversation_resolved',
    ]);
  });

  it('when no bot took part, then a resolution is a person\'s', () => {
    expect(names([incoming(1), status(2, 'open', 'resolved')])).toEqual(['conversation_resolved']);
  });

  it('when a bot resolves twice, then each resolution counts (as resolutions do)', () => {
    expect(names([incoming(1), bot(2), status(3, 'pending', 'resolved', 'agent_bot'), status(4, 'resolved', 'pending', 'agent_bot'), status(5, 'pending', 'resolved', 'agent_bot')]).filter((n) => n === 'conversation_bot_resolved')).toHaveLength(2);
  });
});
