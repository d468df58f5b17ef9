// The import route of the API: a CSV file of another shortener's (or our own) links, and its report row by row.
import type { Api } from '../api/client.ts';

export const IMPORT_FORMATS = ['auto', 'generic', 'bitly', 'yourls', 'kutt', 'shlink'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportRow {
  row: number;
  status: 'created' | 'existing' | 'failed';
  code?: string;
  shortUrl?: string;
  error?: { code: string; message: string };
}

export interface ImportReport {
  format: string;
  rows: number;
  created: number;
  existing: number;
  failed: number;
  results: ImportRow[];
}

/** Every row on the domain `domain` (a host; null: the default domain). */
export function importLinks(api: Api, file: Blob, format: ImportFormat, domain: string | null): Promise<ImportReport> {
  const params = new URLSearchParams({ format });
  if (domain !== null) params.set('domain', domain);
  return api.request<ImportReport>(`/links/import?${params}`, { method: 'POST', body: file, contentType: 'text/csv' });
}
