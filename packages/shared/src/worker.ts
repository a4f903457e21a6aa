import type { Logger } from './logger';

export interface Worker {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/**
 * A worker that runs `tick()` every `intervalMs` after the previous tick ended (never two at
 * once), logs a failed tick and goes on; `stop()` waits for a tick in progress. The timer does
 * not keep the process alive.
 */
export abstract class PeriodicWorker implements Worker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  protected stopped = false;

  constructor(
    protected readonly log: Logger,
    private readonly intervalMs: number,
    /** What a failed tick is logged as (`<what> failed`). */
    private readonly what: string,
  ) {}

  protected abstract tick(): Promise<unknown>;

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .then(() => undefined)
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, `${this.what} failed`))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
