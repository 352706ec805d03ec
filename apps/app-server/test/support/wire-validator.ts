/**
 * The wire sniffer's checker: every message the server sends is validated against our zod
 * schemas (`@deputy/protocol` method tables) and against the reference's JSON Schema (ajv) of the
 * client's generation: Codex app-server 0.130.0 for a 0.130 client, 0.171.0 for a current one (a
 * method only the other version has is checked against that one). A 0.130 client must never get
 * a notification only 0.171 has. Client messages are only recorded, to know which method a
 * response answers. Problems are collected, not thrown, so a test can assert there were none.
 */
import { AppServer, isJsonRpcNotification, isJsonRpcRequest, type JsonRpcMessage, type RequestId } from '@deputy/protocol';
import {
  referenceVersionsOf,
  validateAgainstReference,
  type ReferenceKind,
  type ReferenceVersion,
} from '../../../../packages/protocol/test/support/reference-schema.js';
import type { ClientGeneration } from '../../src/generation.js';

/** The reference a message to a client of `generation` is checked against. */
function referenceFor(generation: ClientGeneration, kind: ReferenceKind, method: string): ReferenceVersion | null {
  const versions = referenceVersionsOf(kind, method);
  const preferred: ReferenceVersion = generation === 'current' ? '0.171' : '0.130';
  return versions.includes(preferred) ? preferred : (versions[0] ?? null);
}

/** Validates against the reference of the client's generation; a problem line or null. */
function checkReference(generation: ClientGeneration, kind: ReferenceKind, method: string, payload: unknown): string | null {
  const version = referenceFor(generation, kind, method);
  if (version === null) return `no reference version has ${kind} ${method}`;
  const ref = validateAgainstReference(kind, method, payload, version);
  return ref.valid ? null : `reference ${version} ${ref.definition}: ${ref.errors.join('; ')}`;
}

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

  /** Validates a message the server sent to a client of `generation`. */
  serverSent(message: JsonRpcMessage, generation: ClientGeneration = '0.130'): void {
    if (isJsonRpcRequest(message)) return this.#serverRequest(message.method, message.params, generation);
    if (isJsonRpcNotification(message)) return this.#notification(message.method, message.params, generation);
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
    const ref = checkReference(generation, 'response', method, message.result);
    if (ref !== null) this.problems.push(`response ${method}: ${ref}`);
  }

  #notification(method: string, params: unknown, generation: ClientGeneration): void {
    this.counts.notifications += 1;
    if (!AppServer.isServerNotificationMethod(method)) {
      this.problems.push(`notification ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverNotifications[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`notification ${method}: ours: ${issuesOf(ours)}`);
    if (generation === '0.130' && !referenceVersionsOf('notification', method).includes('0.130')) {
      this.problems.push(`notification ${method}: sent to a 0.130 client, which does not know it`);
    }
    const ref = checkReference(generation, 'notification', method, params);
    if (ref !== null) this.problems.push(`notification ${method}: ${ref}`);
  }

  #serverRequest(method: string, params: unknown, generation: ClientGeneration): void {
    this.counts.serverRequests += 1;
    if (!AppServer.isServerRequestMethod(method)) {
      this.problems.push(`server request ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverRequests[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`server request ${method}: ours: ${issuesOf(ours)}`);
    const ref = checkReference(generation, 'serverRequest', method, params);
    if (ref !== null) this.problems.push(`server request ${method}: ${ref}`);
  }
}
