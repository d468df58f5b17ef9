// The import route of the API: a CSV file of another shortener's (or our own) links, and its report row by row.
import type { Static } from 'typebox';
import type { IMPORT_FORMATS as SERVER_FORMATS } from '../../../src/links/import-formats.ts';
import type * as schema from '../../../src/links/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';

/** `auto`, the API's default, tells the layout from the file's header; then the layouts the API reads, in its order. */
export const IMPORT_FORMATS = ['auto', 'generic', 'bitly', 'yourls', 'kutt', 'shlink'] as const satisfies readonly [
  'auto',
  ...typeof SERVER_FORMATS,
];
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export type ImportReport = Static<typeof schema.ImportReport>;
export type ImportRow = ImportReport['results'][number];

/** Every row on the domain `domain` (a host; null: the default domain). */
export async function importLinks(api: Api, file: Blob, format: ImportFormat, domain: string | null): Promise<ImportReport> {
  const { data } = await sdk.postLinksImport({
    client: api.client,
    throwOnError: true,
    query: domain === null ? { format } : { format, domain },
    // The route's schema types the body as what the server parses the CSV into (an object): the file goes as it is.
    body: {},
    bodySerializer: () => file,
  });
  return data;
}
