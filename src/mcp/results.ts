// What a tool call answers: a short summary for the model to read and the API's own answer as
// structured content; or, when the API refused, a tool error that keeps the API's stable code, so
// that the model can tell LINK_NOT_FOUND from ROLE_FORBIDDEN and act on it.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ShortenerError } from '../client/client.ts';

/** A success: `summary` as text, `structured` (the API's answer, docs/api.md) as structuredContent. */
export function answered(summary: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: summary }], structuredContent: structured };
}

/** The API's refusal as a tool error: `<CODE>: <message>` as text, the API's error body (with its status) as structuredContent. */
export function refused(error: ShortenerError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    structuredContent: {
      error: {
        code: error.code,
        message: error.message,
        status: error.status,
        ...(error.field === undefined ? {} : { field: error.field }),
        ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      },
    },
  };
}

/** Runs a tool's call: a ShortenerError becomes a tool error; anything else is a fault, for the SDK to report. */
export async function called(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ShortenerError) return refused(error);
    throw error;
  }
}
