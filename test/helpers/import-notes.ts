// The notes an import row gets when the code it brings cannot be its alias, as people read them
// (written out here, not taken from src/links/import-formats.ts, so that a change of wording shows).

/** A code that is no valid alias; `instead`: what happens instead (default: a new code). */
export const invalidCodeNote = (code: string, instead?: string) =>
  `code ${JSON.stringify(code)} is not a valid alias here (3–64 of A-Z a-z 0-9 _ -); ${instead ?? 'a new code will be generated'}`;

export const reservedCodeNote = (code: string) => `code ${JSON.stringify(code)} is a reserved word here; a new code will be generated`;
