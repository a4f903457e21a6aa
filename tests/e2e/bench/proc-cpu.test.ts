import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

type Snapshot = unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cpu = require('../../../scripts/bench/proc-cpu') as {
  configure: (o?: Record<string, unknown>) => void;
  snapshot: () => Snapshot;
  calls: (a: Snapshot, b: Snapshot) => Record<string, number>;
};

/**
 * A process the benchmark counts as its `ceiling` group (its command line names parley-bench-ceiling)
 * that, on each line `<n>` on its stdin, makes n writes of one byte to /dev/null and answers `done`.
 */
const CHILD = `
const fs = require('node:fs');
const fd = fs.openSync('/dev/null', 'w');
const one = Buffer.from('x');
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const n = Number(buf.slice(0, i));
    buf = buf.slice(i + 1);
    for (let k = 0; k < n; k++) fs.writeSync(fd, one);
    process.stdout.write('done\\n');
  }
});
process.stdout.write('ready\\n');
`;

/** The benchmark's system calls a request (scripts/bench/proc-cpu.js `calls`): what each process read and wrote, counted by the kernel. */
describe('benchmark system call counts', () => {
  let child: ChildProcessWithoutNullStreams;
  let out = '';
  const waitFor = (word: string, from: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.indexOf(word, from) >= 0) {
          child.stdout.off('data', check);
          resolve();
        }
      };
      child.stdout.on('data', check);
      child.once('exit', () => reject(new Error('the counted process exited')));
      check();
    });

  beforeAll(async () => {
    cpu.configure({});
    child = spawn(process.execPath, ['-e', CHILD, 'parley-bench-ceiling'], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    await waitFor('ready', 0);
  });
  afterAll(async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });

  async function measure(n: number): Promise<Record<string, number>> {
    const from = out.length;
    const a = cpu.snapshot();
    child.stdin.write(`${n}\n`);
    await waitFor('done', from);
    return cpu.calls(a, cpu.snapshot());
  }

  it('when a process writes 2,000 times, then its group counts those writes, and the total holds them', async () => {
    const c = await measure(2000);
    // The writes, plus the line read and the answer written (and a few of Node's own wake-ups).
    expect(c['ceiling']).toBeGreaterThanOrEqual(2000);
    expect(c['ceiling']).toBeLessThan(2100);
    expect(c['total']).toBeGreaterThanOrEqual(c['ceiling'] as number);
  });

  it('when the same process writes nothing, then its count stays near zero (a difference, not a running total)', async () => {
    const c = await measure(0);
    expect(c['ceiling']).toBeLessThan(50);
  });
});
