// How many memory-hard password hashes run at once: each takes tens of MiB and a thread of libuv's
// pool for tens of milliseconds, and that pool also reads files, resolves host names and compresses
// QR images. At most `atOnce` run (link passwords: PASSWORD_HASHES_AT_ONCE); guesses wait in a queue
// of `guessesWaiting`, and a guess that finds it full is refused at once (503 PASSWORD_CHECKS_BUSY).
// New passwords (creates, changes, imports, sign-ups) wait in a queue of their own, and a freed slot
// alternates between the two: guesses cannot starve new passwords, nor the reverse. Pure: no I/O.

import { AppError } from '../errors.ts';

/** New passwords waiting for a slot: a request's hashes are bounded by the body limits before they get here. */
const NEW_PASSWORDS_WAITING = 1000;

type Start = () => void;

export class HashSlots {
  readonly #atOnce: number;
  readonly #guessesMax: number;
  readonly #guesses: Start[] = [];
  readonly #news: Start[] = [];
  #running = 0;
  /** Which queue the next freed slot looks at first. */
  #guessNext = true;

  constructor(atOnce: number, guessesWaiting: number) {
    this.#atOnce = atOnce;
    this.#guessesMax = guessesWaiting;
  }

  /** Hashes in progress, and guesses and new passwords waiting (for the metrics and tests). */
  get state(): { running: number; guesses: number; news: number } {
    return { running: this.#running, guesses: this.#guesses.length, news: this.#news.length };
  }

  /** Runs the hash of a guess when a slot is free; rejects with PASSWORD_CHECKS_BUSY if its queue is full. */
  guess<T>(hash: () => Promise<T>): Promise<T> {
    return this.#run(hash, this.#guesses, this.#guessesMax);
  }

  /** Runs the hash of a new password when a slot is free; rejects with PASSWORD_CHECKS_BUSY if its queue is full. */
  newPassword<T>(hash: () => Promise<T>): Promise<T> {
    return this.#run(hash, this.#news, NEW_PASSWORDS_WAITING);
  }

  async #run<T>(hash: () => Promise<T>, queue: Start[], max: number): Promise<T> {
    if (this.#running < this.#atOnce) {
      this.#running++;
      // The next slot freed goes to the other queue first.
      this.#guessNext = queue !== this.#guesses;
    } else if (queue.length >= max) throw new AppError('PASSWORD_CHECKS_BUSY');
    // A slot handed over by #release: the count of running hashes is kept for this one.
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await hash();
    } finally {
      this.#release();
    }
  }

  #release(): void {
    let fromGuesses = this.#guessNext;
    let next = (fromGuesses ? this.#guesses : this.#news).shift();
    if (next === undefined) {
      fromGuesses = !fromGuesses;
      next = (fromGuesses ? this.#guesses : this.#news).shift();
    }
    if (next === undefined) {
      this.#running--;
      return;
    }
    this.#guessNext = !fromGuesses;
    next();
  }
}
