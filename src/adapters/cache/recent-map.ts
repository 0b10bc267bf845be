/**
 * A map of at most `maxEntries` entries that forgets the least recently used first: the memory
 * bound of the embedded runtime's caches.
 */
export class RecentMap<K, V> {
  // Boxed, so a stored undefined (a cache's "known to be absent") is told from no entry.
  readonly #entries = new Map<K, { readonly value: V }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value, which counts as a use. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // A Map iterates in insertion order: re-inserting makes this entry the newest.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Deletes every entry the test holds for. */
  deleteWhere(test: (key: K, value: V) => boolean): void {
    for (const [key, entry] of this.#entries) {
      if (test(key, entry.value)) this.#entries.delete(key);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
