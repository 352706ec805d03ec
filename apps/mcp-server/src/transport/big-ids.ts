/**
 * Request ids beyond ±(2^53−1) for the MCP SDK, which only knows `string | number` ids and would
 * round 9223372036854775807 to 9223372036854775808. At the transport boundary such an id is read
 * losslessly from its token's text and handed to the SDK as a reserved string stand-in; the
 * stand-in is turned back into the original digits wherever it is written out, so the client gets
 * its id back exactly. A client's own string id that starts with the reserved prefix is refused.
 */
import { losslessId } from '@deputy/protocol/jsonrpc';

/** Starts every stand-in; a NUL keeps it out of the way of any id a client would choose. */
export const BIG_ID_PREFIX = '\u0000deputy-big-id:';

/** True for a string id a client may not use (it would be mistaken for a stand-in). */
export function isReservedId(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith(BIG_ID_PREFIX);
}

/**
 * Replaces `message.id` (a parsed top-level object from `text`) by a stand-in when its token is an
 * integer a number cannot hold; returns true when it did.
 */
export function standInBigId(text: string, message: Record<string, unknown>): boolean {
  const id = losslessId(text, message.id);
  if (typeof id !== 'bigint') return false;
  message.id = `${BIG_ID_PREFIX}${id.toString()}`;
  return true;
}

/** Writes every `"id":"<stand-in>"` in encoded JSON `text` back as the original digits. */
export function restoreBigIds(text: string): string {
  if (!text.includes('deputy-big-id:')) return text;
  return text.replace(/"id":"\\u0000deputy-big-id:(-?[0-9]+)"/g, '"id":$1');
}
