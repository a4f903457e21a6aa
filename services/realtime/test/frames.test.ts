import * as ws from 'ws';
import { headerLength, writeTextHeader } from '../src/cable/server';

/** `ws`'s frame writer (exported by the package, not in its typings). */
const { Sender } = ws as unknown as { Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] } };

/** The channel frames a read's event frames itself (one buffer a socket): its headers must be the ones `ws` writes. */
describe('event frame headers', () => {
  it.each([0, 1, 125, 126, 127, 1000, 65535, 65536, 70000])('when a text frame has %i payload bytes, then its header is byte for byte what ws sends', (n) => {
    const [wsHeader] = Sender.frame(Buffer.alloc(n), { fin: true, opcode: 1, mask: false, readOnly: true, rsv1: false });
    const out = Buffer.alloc(headerLength(n));
    expect(writeTextHeader(out, 0, n)).toBe(out.length);
    expect(out).toEqual(wsHeader);
  });
});
