/**
 * A least-recently-used map of bounded size: the CID download cache (API.md
 * `IPFS_CACHE_ENTRIES`). A Map keeps insertion order, so re-inserting on every hit makes the
 * first key the least recently used one. Capacity 0 stores nothing.
 */
export class LruCache<K, V> {
  readonly capacity: number;
  readonly #entries = new Map<K, V>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key`, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Store `value`, evicting the least recently used entries beyond capacity. */
  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  clear(): void {
    this.#entries.clear();
  }
}
