// CSV out (RFC 4180): a field with a comma, a quote or a line break is quoted, its quotes doubled;
// free text (a title, each tag, a key's name) that would start a spreadsheet formula is written
// after a "'" (OWASP's advice against CSV injection), which links/import-cells.ts removes again on
// import. Reading a CSV file is the import's (links/csv-file.ts).

/** A cell of people's text, escaped against formulas; plain strings are written as they are. */
export interface TextCell {
  readonly text: string;
}

const NEEDS_QUOTES = /[",\r\n]/;
// A ' of the text itself is escaped too, so that the import can tell it from the guard.
const FORMULA_START = /^[=+\-@\t\r']/;

/** People's text as a spreadsheet shows it, never as a formula. */
export function formulaSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function csvCell(cell: string | TextCell): string {
  const value = typeof cell === 'string' ? cell : formulaSafe(cell.text);
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record, ended with CRLF as RFC 4180 has it. */
export function csvLine(cells: readonly (string | TextCell)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A file as its first record (the header) and the records after it, each with the line it starts on. */
