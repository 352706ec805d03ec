/**
 * Checks the SDK leaves to a validation dump: a request's params that the SDK would refuse with
 * -32603 and a raw zod report get a -32602 with one readable sentence here, on stdio and HTTP.
 */

/** Methods whose `cursor` param is an opaque string from a previous page. */
const PAGED_METHODS = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);

/** The -32602 message for a request's params, or undefined when they may go to the SDK. */
export function paramsProblem(method: unknown, params: unknown): string | undefined {
  if (typeof method !== 'string' || typeof params !== 'object' || params === null) return undefined;
  const cursor = (params as Record<string, unknown>).cursor;
  if (PAGED_METHODS.has(method) && cursor !== undefined && typeof cursor !== 'string') {
    return `Invalid params: ${method} cursor must be a string (the nextCursor of a previous page), got ${cursor === null ? 'null' : Array.isArray(cursor) ? 'an array' : typeof cursor === 'object' ? 'an object' : `a ${typeof cursor}`}`;
  }
  return undefined;
}
