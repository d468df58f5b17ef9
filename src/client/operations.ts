// The API's operations, one function each, generated from its OpenAPI document (generated/sdk.gen.ts), and the
// types of their requests and answers (generated/types.gen.ts). Named by method and path: `getLinks` is
// GET /links, `patchLinksByCode` is PATCH /links/{code}. Each takes `{ client, throwOnError: true, ... }`
// with a client from client.ts.

export * from './generated/sdk.gen.ts';
export type * from './generated/types.gen.ts';
