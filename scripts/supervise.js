/**
 * Keeps a child process running, the way a supervisor (systemd, Kubernetes) would: when it
 * exits on its own it is started again after a back-off (1 s, doubling to 30 s; back to 1 s
 * once a run lasted a minute), and each exit and restart is logged. stop() ends it for good.
 */
function supervise({ name, start, log = (line) => console.error(line), minBackoffMs = 1000, maxBackoffMs = 30_000, stableMs = 60_000 }) {
  let child = null;
  let stopping = false;
  let backoff = minBackoffMs;
  let timer = null;
  let restarts = 0;
  let startedAt = 0;

  const run = () => {
    timer = null;
    if (stopping) return;
    startedAt = Date.now();
    const c = start();
    child = c;
    c.once('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      if (Date.now() - startedAt >= stableMs) backoff = minBackoffMs;
      log(`[start] ${name} exited (${signal || `code ${code}`}); restarting in ${backoff / 1000}s`);
      restarts++;
      timer = setTimeout(() => {
        log(`[start] ${name} restarting (restart ${restarts})`);
        run();
      }, backoff);
      backoff = Math.min(backoff * 2, maxBackoffMs);
    });
  };
  run();

  return {
    name,
    get child() {
      return child;
    },
    get restarts() {
      return restarts;
    },
    /** Stops supervising and the child (SIGTERM); resolves when it has exited. */
    stop(signal = 'SIGTERM') {
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        c.once('exit', () => resolve());
        c.kill(signal);
      });
    },
  };
}

module.exports = { supervise };
