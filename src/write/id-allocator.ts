// Hands out ids for generated codes from blocks reserved in Postgres: one round trip per block
// (1000 ids by default, set by the sequence's increment), and the next block is reserved in the
// background once half of the current one is used, so that creates rarely wait for it. Ids of a
// block left unused when the process ends are skipped, never reused.

export type ReserveBlock = () => Promise<{ start: number; size: number }>;

export class IdAllocator {
  readonly #reserve: ReserveBlock;
  #next = 0;
  #end = 0;
  #half = 0;
  #spare: Promise<{ start: number; size: number }> | null = null;

  constructor(reserve: ReserveBlock) {
    this.#reserve = reserve;
  }

  /** `count` fresh ids. Rejects (and loses nothing) if a block cannot be reserved. */
  async take(count: number): Promise<number[]> {
    const ids: number[] = [];
    while (ids.length < count) {
      if (this.#next >= this.#end) await this.#nextBlock();
      while (ids.length < count && this.#next < this.#end) ids.push(this.#next++);
    }
    if (this.#next >= this.#half && this.#spare === null) this.#spare = this.#reserveSpare();
    return ids;
  }

  async #nextBlock(): Promise<void> {
    const spare = this.#spare ?? this.#reserveSpare();
    this.#spare = null;
    const block = await spare;
    this.#next = block.start;
    this.#end = block.start + block.size;
    this.#half = block.start + Math.floor(block.size / 2);
  }

  #reserveSpare(): Promise<{ start: number; size: number }> {
    const spare = this.#reserve();
    // A failed background reservation is retried by the next take(); it must not go unhandled.
    spare.catch(() => {
      if (this.#spare === spare) this.#spare = null;
    });
    return spare;
  }
}
