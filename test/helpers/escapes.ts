// What escapes as an uncaught exception or an unhandled rejection (either ends the process on
// Node 24) while a test runs: recorded instead, for the test to assert there was none.

/** The errors that escape from now until the test ends. */
export function recordEscapes(t: { after(fn: () => void): void }): unknown[] {
  const escaped: unknown[] = [];
  const record = (err: unknown) => escaped.push(err);
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  t.after(() => {
    process.off('uncaughtException', record);
    process.off('unhandledRejection', record);
  });
  return escaped;
}
