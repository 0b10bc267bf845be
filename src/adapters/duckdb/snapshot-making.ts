/**
 * How far a snapshot being made has been written. A large window's snapshot is made a day at a
 * time while its first pages are served: a page asked for rows not yet written waits for the
 * day that holds them (or for the end of the window), and one asked after the making failed
 * gets its error.
 */
export class SnapshotMaking {
  #written = 0;
  #done = false;
  #failure: { error: unknown; at: number } | undefined;
  #waiting: { end: number; resolve: () => void; reject: (error: unknown) => void }[] = [];

  /** Rows readable so far, from position 0. */
  get written(): number {
    return this.#written;
  }

  get done(): boolean {
    return this.#done;
  }

  /** When the making failed, if it did. */
  get failedAt(): number | undefined {
    return this.#failure?.at;
  }

  /** Rows up to `written` (exclusive) can be read now. */
  advance(written: number): void {
    this.#written = written;
    this.#settle();
  }

  /** Every row is written. */
  finish(): void {
    this.#done = true;
    this.#settle();
  }

  fail(error: unknown): void {
    this.#failure = { error, at: Date.now() };
    this.#settle();
  }

  /** Resolves once rows up to `end` (exclusive) can be read, or every row is written. */
  until(end: number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    if (this.#done || this.#written >= end) return Promise.resolve();
    return new Promise((resolve, reject) => this.#waiting.push({ end, resolve, reject }));
  }

  #settle(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) {
      if (this.#failure) waiter.reject(this.#failure.error);
      else if (this.#done || this.#written >= waiter.end) waiter.resolve();
      else this.#waiting.push(waiter);
    }
  }
}
