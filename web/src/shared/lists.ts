// Lists of values the dashboard needs at run time (the options of a select, the boxes of a fieldset) whose values the
// server declares. Where the server exports its list, a local copy is tied to it with `as const satisfies typeof
// SERVER_LIST` (the same values in the same order, or the typecheck fails); where only its type, or another order
// is shown, with listOf. Neither imports the server's code into the bundle: the imports are type-only.

type Missing<U, L extends readonly unknown[]> = [Exclude<U, L[number]>] extends [never] ? unknown : { missing: Exclude<U, L[number]> };

/**
 * `list` as given, checked to hold every value of `U` and nothing else (a value missing is named in the error):
 * `listOf<Role>()(['viewer', 'member', 'admin'])`.
 */
export function listOf<U extends string | number>() {
  return <const L extends readonly U[]>(list: L & Missing<U, L>): L => list;
}
