/** How a log view holds one record: parsed (and checked), or still the JSON text its view file kept (its bytes `start` to `end` of `file`). */
export type KeptRecord = { value: unknown } | KeptText;
export interface KeptText {
  file: Buffer;
  start: number;
  end: number;
}

/** Parses and checks a record kept as text; throws MEMORY_RECORD_CORRUPT for one that is not JSON or fails its check. */
export type ReadKeptRecord<T> = (id: string, text: KeptText) => T;

/**
 * Issue 32: the live records of a log read through its current view, as a `Map` (the services keep
 * their synchronous reads). A record the view file kept is parsed and checked the first time it is
 * read, then kept parsed, so start-up parses only the view's index; a record that fails then throws
 * MEMORY_RECORD_CORRUPT at that read (agent/memory/README.md). Iterating reads every record.
 */
export class LogViewRecords<T> implements Map<string, T> {
  readonly #kept: Map<string, KeptRecord>;
  readonly #read: ReadKeptRecord<T>;

  constructor(kept: Map<string, KeptRecord>, read: ReadKeptRecord<T>) {
    this.#kept = kept;
    this.#read = read;
  }

  get [Symbol.toStringTag](): string {
    return "LogViewRecords";
  }

  get size(): number {
    return this.#kept.size;
  }

  get(id: string): T | undefined {
    const kept = this.#kept.get(id);
    return kept === undefined ? undefined : this.#valueOf(id, kept);
  }

  has(id: string): boolean {
    return this.#kept.has(id);
  }

  set(id: string, value: T): this {
    this.#kept.set(id, { value });
    return this;
  }

  delete(id: string): boolean {
    return this.#kept.delete(id);
  }

  clear(): void {
    this.#kept.clear();
  }

  forEach(visit: (value: T, id: string, map: Map<string, T>) => void, thisArg?: unknown): void {
    for (const [id, value] of this.entries()) visit.call(thisArg, value, id, this);
  }

  keys(): MapIterator<string> {
    return this.#kept.keys();
  }

  *values(): MapIterator<T> {
    for (const [, value] of this.entries()) yield value;
  }

  *entries(): MapIterator<[string, T]> {
    for (const [id, kept] of this.#kept) yield [id, this.#valueOf(id, kept)];
  }

  [Symbol.iterator](): MapIterator<[string, T]> {
    return this.entries();
  }

  /** The record as parsed: a kept text is read once, and its parsed value replaces it (the id keeps its place). */
  #valueOf(id: string, kept: KeptRecord): T {
    // A value was checked when it was folded from the log, or before the view file kept it.
    if ("value" in kept) return kept.value as T;
    const value = this.#read(id, kept);
    this.#kept.set(id, { value });
    return value;
  }
}
