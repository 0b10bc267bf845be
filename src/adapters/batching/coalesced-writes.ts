/**
 * Writes coalesced into batches under load (group commit): an item is written at once when a
 * write slot is free, and the items that arrive while every slot is busy go together in the
 * next write, up to `maxBatch`. Each caller's promise settles when the write holding its items
 * does, so nothing is acknowledged before it is stored; what batching saves is the fixed cost
 * of a request, paid once per batch instead of once per item.
 */
export interface CoalescingOptions {
  /** The most items one write takes (DynamoDB's BatchWriteItem: 25). */
  readonly maxBatch: number;
  /** Writes under way at once. */
  readonly maxInFlight: number;
}

interface Waiting<T> {
  readonly items: readonly T[];
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export const coalescedWrites = <T>(
  write: (items: readonly T[]) => Promise<void>,
  options: CoalescingOptions,
): ((items: readonly T[]) => Promise<void>) => {
  const queue: Waiting<T>[] = [];
  let inFlight = 0;

  /** The next batch: whole callers, first come first served, at most maxBatch items. */
  const takeBatch = (): Waiting<T>[] => {
    const taken: Waiting<T>[] = [];
    let size = 0;
    while (queue.length > 0) {
      const next = queue[0];
      if (!next || (taken.length > 0 && size + next.items.length > options.maxBatch)) break;
      taken.push(next);
      size += next.items.length;
      queue.shift();
    }
    return taken;
  };

  const drain = () => {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      const batch = takeBatch();
      inFlight++;
      write(batch.flatMap((waiting) => waiting.items))
        .then(
          () => {
            for (const waiting of batch) waiting.resolve();
          },
          (error: unknown) => {
            for (const waiting of batch) waiting.reject(error);
          },
        )
        .finally(() => {
          inFlight--;
          drain();
        });
    }
  };

  return (items) =>
    items.length === 0
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          queue.push({ items, resolve, reject });
          drain();
        });
};
