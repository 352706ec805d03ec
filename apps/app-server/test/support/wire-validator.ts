/**
 * The wire sniffer's checker: every message the server sends is validated against our zod
 * schemas (`@deputy/protocol` method tables) and against the reference's JSON Schema (ajv) of
 * each generation that has the method: Codex app-server 0.130.0 always, 0.171.0 as well with
 * `{ reference0171: true }`. A method that none of the checked references has is a problem.
 * Client messages are recorded, to know which method a response answers; with 0.171 their params
 * are checked too, and must match at least one reference (a client speaks one generation). Problems are collected, not thrown, so a test can
 * assert there were none at the end.
 */
import { AppServer, isJsonRpcNotification, isJsonRpcRequest, type JsonRpcMessage, type RequestId } from '@deputy/protocol';
import {
  REFERENCE_0130,
  reference0171,
  type ReferenceBundle,
  type ReferenceKind,
} from '../../../../packages/protocol/test/support/reference-schema.js';

/** Options of {@link WireValidator}. */
export interface WireValidatorOptions {
  /** Also check against the 0.171 reference, and check the params of client requests. */
  reference0171?: boolean;
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
  readonly #references: readonly ReferenceBundle[];
  readonly #checkRequests: boolean;

  constructor(options: WireValidatorOptions = {}) {
    this.#references = options.reference0171 === true ? [REFERENCE_0130, reference0171()] : [REFERENCE_0130];
    this.#checkRequests = options.reference0171 === true;
  }

  /** Records a message the client sent (and, with 0.171, checks a request's params). */
  clientSent(message: JsonRpcMessage): void {
    if (!isJsonRpcRequest(message)) return;
    this.#requestMethods.set(key(message.id), message.method);
    if (this.#checkRequests) this.#checkRequest(message.method, message.params ?? undefined);
  }

  /** A request is one generation's: it must match at least one reference that has the method. */
  #checkRequest(method: string, params: unknown): void {
    const outcomes = this.#references.filter((r) => r.has('request', method)).map((r) => ({ r, outcome: r.validate('request', method, params) }));
    if (outcomes.length === 0) this.problems.push(`request ${method}: no checked reference has this method`);
    else if (!outcomes.some(({ outcome }) => outcome.valid)) {
      for (const { r, outcome } of outcomes) this.problems.push(`request ${method}: reference ${r.bundleId} ${outcome.definition}: ${outcome.errors.join('; ')}`);
    }
  }

  /** Validates against every checked reference that has the method; a problem when none has it. */
  #checkReferences(kind: ReferenceKind, method: string, payload: unknown, what: string): void {
    const having = this.#references.filter((reference) => reference.has(kind, method));
    if (having.length === 0) this.problems.push(`${what}: no checked reference has this method`);
    for (const reference of having) {
      const ref = reference.validate(kind, method, payload);
      if (!ref.valid) this.problems.push(`${what}: reference ${reference.bundleId} ${ref.definition}: ${ref.errors.join('; ')}`);
    }
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
    this.#checkReferences('response', method, message.result, `response ${method}`);
  }

  #notification(method: string, params: unknown): void {
    this.counts.notifications += 1;
    if (!AppServer.isServerNotificationMethod(method)) {
      this.problems.push(`notification ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverNotifications[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`notification ${method}: ours: ${issuesOf(ours)}`);
    this.#checkReferences('notification', method, params, `notification ${method}`);
  }

  #serverRequest(method: string, params: unknown): void {
    this.counts.serverRequests += 1;
    if (!AppServer.isServerRequestMethod(method)) {
      this.problems.push(`server request ${method}: not in our table`);
      return;
    }
    const ours = AppServer.serverRequests[method].params.safeParse(params);
    if (!ours.success) this.problems.push(`server request ${method}: ours: ${issuesOf(ours)}`);
    this.#checkReferences('serverRequest', method, params, `server request ${method}`);
  }
}
