/**
 * The old import path of the 0.171 server-message check, kept for tests written against it. The
 * one implementation is `serverMessageProblems` in packages/protocol/test/support/reference-schema.ts;
 * new tests import that.
 */
import type { JsonRpcMessage } from '@deputy/protocol';
import { serverMessageProblems } from '../../../../packages/protocol/test/support/reference-schema.js';

/** Problems of a message the server sent, against 0.171 (responses need the request's method). */
export const serverMessageProblems0171 = (message: JsonRpcMessage, requestMethod?: string): string[] => serverMessageProblems(message, '0.171', requestMethod);
