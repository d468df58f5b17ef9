// The types of @shlinkio/shlink-js-sdk 3.2.1 that test/compat/shlink.test.ts uses. The package's own
// declarations re-export with extensionless paths (`export * from './api'`), which TypeScript's
// nodenext resolution does not follow in an ES module package, so the test would see no exports.
// These copy the package's own declarations (dist/api-contract/types.d.ts) for what the test calls.

declare module '@shlinkio/shlink-js-sdk' {
  export interface ShlinkVisitsSummary {
    total: number;
    nonBots: number;
    bots: number;
  }
  export interface ShlinkShortUrl {
    shortCode: string;
    domain: string | null;
    shortUrl: string;
    longUrl: string;
    dateCreated: string;
    visitsSummary: ShlinkVisitsSummary;
    meta: { validSince: string | null; validUntil: string | null; maxVisits: number | null };
    tags: string[];
    title?: string | null;
    crawlable?: boolean;
    forwardQuery?: boolean;
    hasRedirectRules?: boolean;
  }
  export interface ShlinkEditShortUrlData {
    longUrl?: string;
    title?: string | null;
    tags?: string[];
    crawlable?: boolean;
    forwardQuery?: boolean;
    validSince?: string | null;
    validUntil?: string | null;
    maxVisits?: number | null;
  }
  export type ShlinkCreateShortUrlData = Omit<ShlinkEditShortUrlData, 'longUrl'> & {
    longUrl: string;
    customSlug?: string;
    shortCodeLength?: number;
    domain?: string;
    findIfExists?: boolean;
  };
  export interface ShlinkPaginator {
    currentPage: number;
    pagesCount: number;
    totalItems: number;
  }
  export interface ShlinkShortUrlsListParams {
    page?: string;
    itemsPerPage?: number;
    searchTerm?: string;
    domain?: string;
    tags?: string[];
    orderBy?: { field?: 'dateCreated' | 'shortCode' | 'longUrl' | 'title' | 'visits' | 'nonBotVisits'; dir?: 'ASC' | 'DESC' };
  }
  export interface ShlinkShortUrlIdentifier {
    shortCode: string;
    domain?: string | null;
  }
  export interface ShlinkDomain {
    domain: string;
    isDefault: boolean;
  }
  export interface HttpClient {
    jsonRequest<T>(url: string, options?: RequestInit): Promise<T>;
    emptyRequest(url: string, options?: RequestInit): Promise<void>;
  }
  export class ShlinkApiClient {
    constructor(httpClient: HttpClient, serverInfo: { baseUrl: string; apiKey: string });
    health(): Promise<{ status: 'pass' | 'fail'; version: string }>;
    listShortUrls(params?: ShlinkShortUrlsListParams): Promise<{ data: ShlinkShortUrl[]; pagination: ShlinkPaginator }>;
    createShortUrl(data: ShlinkCreateShortUrlData): Promise<ShlinkShortUrl>;
    getShortUrl(id: ShlinkShortUrlIdentifier): Promise<ShlinkShortUrl>;
    updateShortUrl(id: ShlinkShortUrlIdentifier, data: ShlinkEditShortUrlData): Promise<ShlinkShortUrl>;
    deleteShortUrl(id: ShlinkShortUrlIdentifier): Promise<void>;
    getShortUrlVisits(id: ShlinkShortUrlIdentifier): Promise<unknown>;
    getVisitsOverview(): Promise<{ nonOrphanVisits: ShlinkVisitsSummary; orphanVisits: ShlinkVisitsSummary }>;
    listTags(): Promise<{ data: string[] }>;
    tagsStats(): Promise<{ data: { tag: string; shortUrlsCount: number; visitsSummary: ShlinkVisitsSummary }[] }>;
    listDomains(): Promise<{ data: ShlinkDomain[] }>;
    mercureInfo(): Promise<{ token: string; mercureHubUrl: string }>;
  }
}

declare module '@shlinkio/shlink-js-sdk/fetch' {
  import type { HttpClient } from '@shlinkio/shlink-js-sdk';
  export class FetchHttpClient implements HttpClient {
    jsonRequest<T>(url: string, options?: RequestInit): Promise<T>;
    emptyRequest(url: string, options?: RequestInit): Promise<void>;
  }
}

declare module '@shlinkio/shlink-js-sdk/api-contract' {
  export const ErrorType: {
    readonly INVALID_ARGUMENT: 'https://shlink.io/api/error/invalid-data';
    readonly INVALID_SLUG: 'https://shlink.io/api/error/non-unique-slug';
    readonly INVALID_SHORTCODE: 'https://shlink.io/api/error/short-url-not-found';
    readonly MERCURE_NOT_CONFIGURED: 'https://shlink.io/api/error/mercure-not-configured';
    readonly INVALID_AUTHORIZATION: 'https://shlink.io/api/error/missing-authentication';
    readonly INVALID_API_KEY: 'https://shlink.io/api/error/invalid-api-key';
    readonly NOT_FOUND: 'https://shlink.io/api/error/not-found';
  };
}
