// Ids as people and URLs give them (keys, workspaces, a creator filter). Pure.

/** Digits, few enough for a safe integer: more would be refused by Postgres's bigint anyway, or lose digits here. */
const ID = /^\d{1,15}$/;

/** The id `text` spells, or undefined. */
export function parseId(text: string | undefined): number | undefined {
  return text !== undefined && ID.test(text) ? Number(text) : undefined;
}
