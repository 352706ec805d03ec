/**
 * The wire sniffer's checker: every message the server sends is validated against our zod
 * schemas (`@deputy/protocol` method tables) and against the reference's JSON Schema of Codex
 * app-server 0.130.0 (ajv). Client messages are only recorded, to know which method a response
 * answers. Problems are collected, not thrown, so a test can assert there were none at the end.
 */
import { AppServer, isJsonRpcNotification, isJsonRpcRequest, type JsonRpcMessage, type RequestId } from '@deputy/protocol';
import { validateAgainstReference } from '../../../../packages/protocol/test/support/reference-schema.js';

function issuesOf(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }): string {
  return (result.error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
}

const key = (id: RequestId): string => JSON.stringify(id);

/** See the module comment. */
export class WireValidator {
  /** One line per problem found, e.g. `notification item/started: ours: item.cwd: …`. */
  readonly problems: string[] = [];
  /** Messages checked, per kind (so a test can tell the sniffer saw something). */
  readonly counts = { responses: 0, errors: 0, notifications: 0, serverRequests: 0 };
  readonly #requestMethods = new Map<string, string>();

  /** Records a message the client sent. */
  clientSent(message: JsonRpcMessage): void {
    if (isJsonRpcRequest(message)) this.#requestMethods.set(key(message.id), message.method);
  }

  /** Validates a message the server sent. */
  serverSent(message: JsonRpcMessage): void {
    if (isJsonRpcRequest(message)) return this.#serverRequest(message.method, message.params);
    if (isJsonRpcNotification(message)) return this.#notification(message.method, message.params);
    const method = this.#requestMethods.get(key(message.id));
    if (message.error !== undefined) {
      this.counts.errors += 1;
      const { code, message: text } = message.error;
      if (!Number.isInteger(code) || typeof text !== 'string' || text === '') this.problems.push(`error response ${key(message.id)}: malformed error ${JSON.stringify(message.error)}`);
      return;
    }
    this.counts.responses += 1;
    if (method === undefined) {
      this.problems.push(`response ${key(message.id)}: answers no request the client sent`);
      return;
    }
    if (!AppServer.isClientRequestMethod(method)) return;
    const ours = AppServer.clientRequests[method].result.safeParse(message.result);
    if (!ours.success) this.problems.push(`response ${method}: ours: ${issuesOf(ours)}`);
    const ref = validateAgainstReference('response', method, message.result);
    if (!ref.valid) this.problems.push(`response ${method}: reference ${ref.definition}: ${ref.errors.join('; ')}`);
  }

  #notification(method: string, params: unknown): void {
    this.counts.notifications += 1;
    if (!AppServer.isServerNotificationMethod(method)) {
      this.problems.push(`notification ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverNotifications[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`notification ${method}: ours: ${issuesOf(ours)}`);
    const ref = validateAgainstReference('notification', method, params);
    if (!ref.valid) this.problems.push(`notification ${method}: reference ${ref.definition}: ${ref.errors.join('; ')}`);
  }

  #serverRequest(method: string, params: unknown): void {
    this.counts.serverRequests += 1;
    if (!AppServer.isServerRequestMethod(method)) {
      this.problems.push(`server request ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverRequests[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`server request ${method}: ours: ${issuesOf(ours)}`);
    const ref = validateAgainstReference('serverRequest', method, params);
    if (!ref.valid) this.problems.push(`server request ${method}: reference ${ref.definition}: ${ref.errors.join('; ')}`);
  }
}
