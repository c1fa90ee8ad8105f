/**
 * One pass at a time: a request while a pass runs asks for exactly one more after it, however many
 * requests came meanwhile. The dispatcher (./dispatchLoop.ts) and the wake loop (./wakeLoop.ts)
 * run their passes through it.
 */
export class SerialPasses {
  private running: Promise<void> | undefined;
  private again = false;

  /** `pass` is one pass; `enabled` says whether passes may start (false once the loop stopped). */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly enabled: () => boolean,
  ) {}

  /** Runs a pass now, or right after the one in flight. */
  request(): void {
    if (!this.enabled()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.request();
      }
    });
  }

  /** The pass in flight, if any. */
  get inFlight(): Promise<void> | undefined {
    return this.running;
  }
}
