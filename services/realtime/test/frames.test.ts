import net from 'node:net';
import * as ws from 'ws';
import { FrameSlab, headerLength, writeTextHeader, type RawSocket } from '../src/cable/server';

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

/** A socket whose writes either leave at once or stay queued (holding the buffer), as the test says. */
class FakeSocket implements RawSocket {
  writableLength = 0;
  readonly held: Array<{ out: Buffer; bytes: Buffer }> = [];
  constructor(private readonly keeps: boolean) {}
  write(out: Buffer): boolean {
    if (this.keeps) {
      this.held.push({ out, bytes: Buffer.from(out) });
      this.writableLength += out.length;
    }
    return true;
  }
}

describe('FrameSlab', () => {
  const send = (slab: FrameSlab, socket: FakeSocket, size: number, fill: number): Buffer => {
    const out = slab.take(socket, size);
    out.fill(fill);
    socket.write(out);
    slab.sent(socket, out);
    return out;
  };

  it('when writes leave at once, then every socket is framed in the same region', () => {
    const slab = new FrameSlab(4096);
    const first = send(slab, new FakeSocket(false), 300, 1);
    for (let i = 0; i < 50; i++) {
      const out = send(slab, new FakeSocket(false), 300, i);
      expect(out.buffer).toBe(first.buffer);
      expect(out.byteOffset).toBe(first.byteOffset);
    }
  });

  it('when some writes stay queued, then what they hold is never written over, whatever comes after', () => {
    const slab = new FrameSlab(4096);
    const slow = [new FakeSocket(true), new FakeSocket(true), new FakeSocket(true)];
    let fill = 0;
    for (let i = 0; i < 400; i++) {
      const socket = i % 7 === 0 ? (slow[i % 3] as FakeSocket) : new FakeSocket(false);
      send(slab, socket, 100 + ((i * 37) % 400), ++fill % 256);
    }
    // A socket with writes queued gets a buffer of its own; a region it held stays as it was written.
    for (const socket of slow) {
      expect(socket.held.length).toBeGreaterThan(10);
      for (const { out, bytes } of socket.held) expect(out.equals(bytes)).toBe(true);
    }
  });
});

describe('FrameSlab on real sockets', () => {
  it('when a peer stops reading and its writes stay queued while another peer reads, then both receive exactly the bytes framed for them', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    const accepted: net.Socket[] = [];
    server.on('connection', (s) => accepted.push(s));
    const received = [[], []] as Buffer[][];
    const clients = [0, 1].map((k) => {
      const c = net.connect(port, '127.0.0.1');
      c.on('data', (d: Buffer) => received[k]!.push(d));
      return c;
    });
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(accepted).toHaveLength(2);
      const stalled = clients[0] as net.Socket;
      stalled.pause();
      const slab = new FrameSlab(64 * 1024);
      const expected = [[], []] as Buffer[][];
      let n = 0;
      // Until the stalled peer's socket holds writes of its own (its kernel buffers full), and well after.
      for (let round = 0; round < 4000 && (accepted[0]!.writableLength === 0 || round < 400); round++) {
        for (let k = 0; k < 2; k++) {
          const socket = accepted[k]!;
          const size = 2000 + ((round * 131 + k * 17) % 6000);
          const out = slab.take(socket, size);
          out.fill(++n % 251);
          out.writeUInt32BE(n, 0);
          expected[k]!.push(Buffer.from(out));
          socket.write(out);
          slab.sent(socket, out);
        }
        if (round % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(accepted[0]!.writableLength).toBeGreaterThan(0);
      stalled.resume();
      const total = expected.map((e) => e.reduce((a, b) => a + b.length, 0));
      for (let waited = 0; waited < 200 && received.some((r, k) => r.reduce((a, b) => a + b.length, 0) < total[k]!); waited++) await new Promise((r) => setTimeout(r, 50));
      for (const k of [0, 1]) expect(Buffer.concat(received[k]!).equals(Buffer.concat(expected[k]!))).toBe(true);
    } finally {
      for (const c of clients) c.destroy();
      for (const s of accepted) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
