import { unwrap } from '../src/http';

describe('unwrap (Rails wrap_parameters)', () => {
  it('when a body is flat or wrapped, then the record fields come back either way', () => {
    expect(unwrap({ name: 'A' }, 'agent')).toEqual({ name: 'A' });
    expect(unwrap({ agent: { name: 'A' } }, 'agent')).toEqual({ name: 'A' });
    // Not an object under the key: the body is the record.
    expect(unwrap({ agent: 'x', name: 'A' }, 'agent')).toEqual({ agent: 'x', name: 'A' });
    expect(unwrap(null, 'agent')).toBeNull();
  });

  it('when keys sit beside the wrapper, then they are dropped unless siblings are asked for, and the wrapped ones win', () => {
    const body = { contact: { name: 'Wrapped' }, name: 'Flat', inbox_id: 5 };
    expect(unwrap(body, 'contact')).toEqual({ name: 'Wrapped' });
    expect(unwrap(body, 'contact', { siblings: true })).toEqual({ name: 'Wrapped', inbox_id: 5 });
  });
});
