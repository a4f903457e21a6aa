import { MESSAGE_TYPE_HEADER } from '@parley/shared';
import { webhooksConsumer, type FanoutDeps } from '../src/webhooks/fanout';

describe('the webhooks queue`s bindings', () => {
  it('when it binds message events, then it binds them on every message type but activity messages (which never make a delivery), and the other events plainly', () => {
    const spec = webhooksConsumer({ config: { CONSUMER_BATCH_SIZE: 20, WEBHOOKS_BATCH_WAIT_MS: 200 } } as unknown as FanoutDeps);
    expect(spec.bindings).toEqual(expect.arrayContaining(['conversation.created', 'conversation.updated', 'contact.created', 'inbox.updated']));
    expect(spec.bindings).not.toContain('message.created');
    expect(spec.bindings).not.toContain('message.updated');
    expect(spec.headerBindings).toEqual(
      ['message.created', 'message.updated'].flatMap((type) => ['0', '1', '3'].map((t) => ({ type, headers: { [MESSAGE_TYPE_HEADER]: t } }))),
    );
  });
});
