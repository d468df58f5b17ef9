// Wrong second-factor codes are limited as wrong passwords are (PeopleService.signIn): an attempt is
// reserved per client address and per account before it is judged, and a right one is given back,
// so guessing six digits or a recovery code from many addresses or many accounts runs out of budget
// (SIGN_IN_MAX_FAILURES, SIGN_IN_ACCOUNT_MAX_FAILURES in SIGN_IN_WINDOW_SECONDS).

import type { AttemptBudget } from '../api/attempt-budget.ts';
import { AppError } from '../errors.ts';

/** 429 SECOND_FACTOR_RATE_LIMITED, with the seconds the route puts in Retry-After. */
export class SecondFactorLimited extends AppError {
  readonly retryAfterSeconds: number;

  constructor(seconds: number) {
    super('SECOND_FACTOR_RATE_LIMITED', `Too many wrong codes; retry after ${seconds} s.`);
    this.retryAfterSeconds = seconds;
  }
}

export class SecondFactorAttempts {
  readonly #client: AttemptBudget;
  readonly #account: AttemptBudget;

  /** The budgets of password sign-ins: the client's is shared with them, the account's counted apart (its key is the person's id). */
  constructor(budgets: { readonly client: AttemptBudget; readonly account: AttemptBudget }) {
    this.#client = budgets.client;
    this.#account = budgets.account;
  }

  /** `judge`'s verdict, within the budgets of `client` and the person: a wrong answer uses one up, a right one does not. */
  async judged(client: string, personId: number, judge: () => Promise<boolean>): Promise<boolean> {
    const account = `second-factor:${personId}`;
    await this.#take(this.#client, client);
    try {
      await this.#take(this.#account, account);
    } catch (err) {
      await this.#client.giveBack(client);
      throw err;
    }
    const giveBack = () => Promise.all([this.#client.giveBack(client), this.#account.giveBack(account)]);
    let right: boolean;
    try {
      right = await judge();
    } catch (err) {
      // Never judged (the database failed): nothing was guessed.
      await giveBack();
      throw err;
    }
    if (right) await giveBack();
    return right;
  }

  async #take(budget: AttemptBudget, key: string): Promise<void> {
    const reserved = await budget.take(key);
    if (!reserved.ok) throw new SecondFactorLimited(reserved.retryAfterSeconds);
  }
}
