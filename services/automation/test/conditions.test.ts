import { compileCondition, evaluate, type Facts } from '../src/engine/conditions';
import type { Condition } from '../src/rules/schemas';

const facts = (over: Partial<Facts> = {}): Facts => ({
  conversation: {
    id: 1,
    status: 'open',
    priority: null,
    labels: ['vip', 'Billing'],
    assignee_id: 5,
    team_id: null,
    inbox_id: 3,
    additional_attributes: { browser_language: 'pt', referer: 'https://shop.example/cart' },
    custom_attributes: { plan: 'Pro', seats: 12 },
  },
  message: { id: 9, content: 'Please REFUND my order', message_type: 0 },
  contact: { email: 'ana@example.com', phone_number: '+351911', additional_attributes: { city: 'Porto', country_code: 'PT' }, custom_attributes: { tier: 'gold' } },
  changes: null,
  ...over,
});

const c = (attribute_key: string, filter_operator: string, values: Condition['values'] = [], extra: Partial<Condition> = {}): Condition => ({
  attribute_key,
  filter_operator,
  values,
  // The engine also reads a null join (the last condition joins nothing); Condition types the stored, defaulted form.
  query_operator: null as unknown as string,
  ...extra,
});

const check = (cond: Condition, f: Facts = facts()) => compileCondition(cond).test(f);

describe('rule conditions', () => {
  it.each([
    ['content contains, any case', c('content', 'contains', ['refund']), true],
    ['content does_not_contain', c('content', 'does_not_contain', ['refund', 'cancel']), false],
    ['content equal_to is whole-text', c('content', 'equal_to', ['refund']), false],
    ['message_type by name', c('message_type', 'equal_to', ['incoming']), true],
    ['message_type not outgoing', c('message_type', 'not_equal_to', ['outgoing']), true],
    ['status equal_to', c('status', 'equal_to', ['open', 'pending']), true],
    ['status all', c('status', 'equal_to', ['all']), true],
    ['priority nil means none', c('priority', 'equal_to', ['nil']), true],
    ['assignee_id by id', c('assignee_id', 'equal_to', ['5']), true],
    ['team_id is_not_present', c('team_id', 'is_not_present'), true],
    ['inbox_id not_equal_to', c('inbox_id', 'not_equal_to', ['3']), false],
    ['labels equal_to (has the label, any case)', c('labels', 'equal_to', ['billing']), true],
    ['labels not_equal_to', c('labels', 'not_equal_to', ['spam']), true],
    ['labels is_present', c('labels', 'is_present'), true],
    ['browser_language', c('browser_language', 'equal_to', ['PT']), true],
    ['referer contains', c('referer', 'contains', ['/cart']), true],
    ['mail_subject absent does not contain', c('mail_subject', 'does_not_contain', ['x']), true],
    ['email contains', c('email', 'contains', ['@example.com']), true],
    ['phone starts_with', c('phone_number', 'starts_with', ['+351']), true],
    ['country_code', c('country_code', 'equal_to', ['pt']), true],
    ['city not_equal_to', c('city', 'not_equal_to', ['Lisbon']), true],
    ['company absent', c('company', 'equal_to', ['Acme']), false],
    ['conversation custom attribute', c('plan', 'equal_to', ['pro'], { custom_attribute_type: 'conversation_attribute' }), true],
    ['custom number greater than', c('seats', 'is_greater_than', ['10'], { custom_attribute_type: 'conversation_attribute' }), true],
    ['custom number less than', c('seats', 'is_less_than', ['10'], { custom_attribute_type: 'conversation_attribute' }), false],
    ['contact custom attribute', c('tier', 'equal_to', ['GOLD'], { custom_attribute_type: 'contact_attribute' }), true],
    ['missing custom attribute is not present', c('nope', 'is_not_present', [], { custom_attribute_type: 'contact_attribute' }), true],
  ])('%s', (_name, cond, expected) => {
    expect(check(cond)).toBe(expected);
  });

  it('when there is no contact, then contact conditions do not match (and say they need one)', () => {
    const cond = compileCondition(c('email', 'contains', ['@']));
    expect(cond.needsContact).toBe(true);
    expect(cond.test(facts({ contact: null }))).toBe(false);
    expect(compileCondition(c('status', 'equal_to', ['open'])).needsContact).toBe(false);
  });

  it('attribute_changed compares the event changes with from/to', () => {
    const cond = c('status', 'attribute_changed', { from: ['open'], to: ['resolved'] });
    expect(check(cond, facts({ changes: { status: ['open', 'resolved'] } }))).toBe(true);
    expect(check(cond, facts({ changes: { status: ['pending', 'resolved'] } }))).toBe(false);
    expect(check(cond, facts({ changes: { priority: [null, 'low'] } }))).toBe(false);
    const anyTo = c('priority', 'attribute_changed', { from: [], to: ['high', 'urgent'] });
    expect(check(anyTo, facts({ changes: { priority: ['low', 'urgent'] } }))).toBe(true);
    const custom = c('plan', 'attribute_changed', { from: ['basic'], to: ['pro'] }, { custom_attribute_type: 'conversation_attribute' });
    expect(check(custom, facts({ changes: { custom_attributes: [{ plan: 'basic' }, { plan: 'Pro' }] } }))).toBe(true);
    const label = c('labels', 'attribute_changed', { from: [], to: ['vip'] });
    expect(check(label, facts({ changes: { labels: [['billing'], ['billing', 'vip']] } }))).toBe(true);
    expect(check(label, facts({ changes: { labels: [['vip'], []] } }))).toBe(false);
  });

  it('joins conditions left to right with AND binding tighter than OR, and [] matches everything', () => {
    const T = c('status', 'equal_to', ['open']);
    const F = c('status', 'equal_to', ['resolved']);
    const join = (cond: Condition, q: string | null): Condition => ({ ...cond, query_operator: q as string });
    const run = (list: Condition[]) => evaluate(list.map(compileCondition), facts());
    // F AND T OR T = (F AND T) OR T = true
    expect(run([join(F, 'AND'), join(T, 'OR'), join(T, null)]).matched).toBe(true);
    // T OR F AND F = T OR (F AND F) = true (left-to-right without precedence would be false)
    expect(run([join(T, 'or'), join(F, 'and'), join(F, null)]).matched).toBe(true);
    // F OR T AND F = F OR (T AND F) = false
    expect(run([join(F, 'Or'), join(T, 'And'), join(F, null)])).toEqual({ matched: false, results: [false, true, false] });
    expect(run([]).matched).toBe(true);
  });
});
