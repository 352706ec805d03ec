/**
 * Test-only access to the committed reference JSON Schema of Codex app-server 0.130.0
 * (`test/reference-schema/codex-0.130/`, draft-07): which methods the reference has, and
 * validation of a payload against the reference definition of a method's params or result with
 * Ajv. Apps' end-to-end suites import this by relative path. Ajv stays out of the runtime package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * What a payload is: a client request's `params`, its `result` (`response`), a server
 * notification's `params`, a server request's `params`, or the client's `result` to a server
 * request (`serverResponse`).
 */
export type ReferenceKind = 'request' | 'response' | 'notification' | 'serverRequest' | 'serverResponse';

/** Outcome of one validation. */
export interface ReferenceValidation {
  /** True when the payload matches the reference definition. */
  readonly valid: boolean;
  /** The definition used, e.g. `v2/ThreadStartParams`; null for a method without params. */
  readonly definition: string | null;
  /** Ajv's errors as `<instance path> <message>` lines; empty when valid. */
  readonly errors: readonly string[];
}

/** The reference's method names, in its order. */
export interface ReferenceMethods {
  /** Client→server requests (`ClientRequest.json`). */
  readonly clientRequests: readonly string[];
  /** Server→client notifications (`ServerNotification.json`). */
  readonly serverNotifications: readonly string[];
  /** Server→client requests (`ServerRequest.json`). */
  readonly serverRequests: readonly string[];
  /** Client→server notifications (`ClientNotification.json`). */
  readonly clientNotifications: readonly string[];
}

/** Directory of the committed reference schema. */
export const REFERENCE_SCHEMA_DIR = fileURLToPath(new URL('../reference-schema/codex-0.130/', import.meta.url));

const BUNDLE_ID = 'codex-app-server-0.130';

/** Results whose definition name is not the params name with `Params` → `Response`. */
const RESPONSE_OVERRIDES: Readonly<Record<string, string>> = {
  'config/value/write': 'ConfigWriteResponse',
  'config/batchWrite': 'ConfigWriteResponse',
  'memory/reset': 'MemoryResetResponse',
  'config/mcpServer/reload': 'McpServerRefreshResponse',
  'windowsSandbox/readiness': 'WindowsSandboxReadinessResponse',
  'account/logout': 'LogoutAccountResponse',
  'account/rateLimits/read': 'GetAccountRateLimitsResponse',
  'configRequirements/read': 'ConfigRequirementsReadResponse',
};

interface JsonObject {
  readonly [key: string]: unknown;
}

interface MethodEntry {
  /** JSON pointer of the params definition inside the bundle, or null without params. */
  readonly params: string | null;
  /** JSON pointer of the result definition, for requests. */
  readonly result: string | null;
}

interface ReferenceIndex {
  readonly ajv: Ajv;
  readonly clientRequests: ReadonlyMap<string, MethodEntry>;
  readonly serverNotifications: ReadonlyMap<string, MethodEntry>;
  readonly serverRequests: ReadonlyMap<string, MethodEntry>;
  readonly clientNotifications: ReadonlyMap<string, MethodEntry>;
}

let index: ReferenceIndex | undefined;

function asObject(value: unknown, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`reference schema: ${what} is not an object`);
  }
  return value as JsonObject;
}

/** Finds a definition by name (v2 first) and returns its JSON pointer inside the bundle. */
function pointerOf(definitions: JsonObject, name: string): string | null {
  if (Object.hasOwn(asObject(definitions['v2'], 'definitions.v2'), name)) return `#/definitions/v2/${name}`;
  if (Object.hasOwn(definitions, name)) return `#/definitions/${name}`;
  return null;
}

/** Reads the `oneOf` of a message union (`ClientRequest`, …) into method → params pointer. */
function readUnion(definitions: JsonObject, union: string, withResult: boolean): Map<string, MethodEntry> {
  const variants = asObject(definitions[union], union)['oneOf'];
  if (!Array.isArray(variants)) throw new Error(`reference schema: ${union}.oneOf missing`);
  const methods = new Map<string, MethodEntry>();
  for (const variant of variants) {
    const properties = asObject(asObject(variant, union)['properties'], `${union} properties`);
    const methodEnum = asObject(properties['method'], `${union} method`)['enum'];
    const method = Array.isArray(methodEnum) ? methodEnum[0] : undefined;
    if (typeof method !== 'string') throw new Error(`reference schema: ${union} variant without method`);
    const ref = properties['params'] === undefined ? null : asObject(properties['params'], 'params')['$ref'];
    const paramsName = typeof ref === 'string' ? (ref.split('/').pop() ?? null) : null;
    const params = paramsName === null ? null : pointerOf(definitions, paramsName);
    let result: string | null = null;
    if (withResult) {
      const resultName = RESPONSE_OVERRIDES[method] ?? paramsName?.replace(/Params$/, 'Response');
      result = resultName === undefined ? null : pointerOf(definitions, resultName);
      if (result === null) throw new Error(`reference schema: no result definition for ${method}`);
    }
    methods.set(method, { params, result });
  }
  return methods;
}

function isInteger(value: number): boolean {
  return Number.isSafeInteger(value);
}

function loadIndex(): ReferenceIndex {
  if (index !== undefined) return index;
  const bundle = asObject(
    JSON.parse(readFileSync(`${REFERENCE_SCHEMA_DIR}codex_app_server_protocol.schemas.json`, 'utf8')),
    'bundle',
  );
  const definitions = asObject(bundle['definitions'], 'definitions');
  const ajv = new Ajv({ allErrors: true, strict: true });
  addFormats.default(ajv);
  // The Rust generator tags integers with their width; Ajv does not know these formats.
  const ranges: Record<string, [number, number]> = {
    int32: [-2147483648, 2147483647],
    int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    uint: [0, Number.MAX_SAFE_INTEGER],
    uint16: [0, 65535],
    uint32: [0, 4294967295],
    uint64: [0, Number.MAX_SAFE_INTEGER],
  };
  for (const [format, [min, max]] of Object.entries(ranges)) {
    ajv.addFormat(format, { type: 'number', validate: (n: number) => isInteger(n) && n >= min && n <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addSchema(bundle, BUNDLE_ID);
  index = {
    ajv,
    clientRequests: readUnion(definitions, 'ClientRequest', true),
    serverNotifications: readUnion(definitions, 'ServerNotification', false),
    serverRequests: readUnion(definitions, 'ServerRequest', true),
    clientNotifications: readUnion(definitions, 'ClientNotification', false),
  };
  return index;
}

/** The reference's method names for each direction, in the reference's order. */
export function referenceMethods(): ReferenceMethods {
  const { clientRequests, serverNotifications, serverRequests, clientNotifications } = loadIndex();
  return {
    clientRequests: [...clientRequests.keys()],
    serverNotifications: [...serverNotifications.keys()],
    serverRequests: [...serverRequests.keys()],
    clientNotifications: [...clientNotifications.keys()],
  };
}

function entryOf(kind: ReferenceKind, method: string): MethodEntry {
  const loaded = loadIndex();
  const table =
    kind === 'request' || kind === 'response'
      ? loaded.clientRequests
      : kind === 'notification'
        ? loaded.serverNotifications
        : loaded.serverRequests;
  const entry = table.get(method);
  if (entry === undefined) throw new Error(`the reference has no ${kind} method ${method}`);
  return entry;
}

/**
 * The reference definition for `kind` of `method`, e.g. `v2/ThreadStartParams`, or null when the
 * method has no params. Throws for a method the reference does not have.
 */
export function referenceDefinitionOf(kind: ReferenceKind, method: string): string | null {
  const entry = entryOf(kind, method);
  const pointer = kind === 'response' || kind === 'serverResponse' ? entry.result : entry.params;
  return pointer === null ? null : pointer.replace('#/definitions/', '');
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  const detail = Object.keys(error.params).length === 0 ? '' : ` ${JSON.stringify(error.params)}`;
  return `${where} ${error.message ?? error.keyword}${detail}`;
}

/**
 * Validates `payload` against the reference definition of `kind` for `method`. For a method
 * without params the payload must be absent (undefined or null). Throws for a method the
 * reference does not have.
 */
export function validateAgainstReference(kind: ReferenceKind, method: string, payload: unknown): ReferenceValidation {
  const entry = entryOf(kind, method);
  const pointer = kind === 'response' || kind === 'serverResponse' ? entry.result : entry.params;
  if (pointer === null) {
    const valid = payload === undefined || payload === null;
    return { valid, definition: null, errors: valid ? [] : ['/ the reference defines no params for this method'] };
  }
  const validate = loadIndex().ajv.getSchema(`${BUNDLE_ID}${pointer}`);
  if (validate === undefined) throw new Error(`reference schema: cannot compile ${pointer}`);
  // The reference has no `$async` schemas, so validation is synchronous.
  const valid = validate(payload) === true;
  return {
    valid,
    definition: pointer.replace('#/definitions/', ''),
    errors: valid ? [] : (validate.errors ?? []).map(describe),
  };
}

/** Like `validateAgainstReference`, but throws an Error listing the problems when invalid. */
export function assertMatchesReference(kind: ReferenceKind, method: string, payload: unknown): void {
  const outcome = validateAgainstReference(kind, method, payload);
  if (!outcome.valid) {
    throw new Error(
      `${kind} ${method} does not match reference ${outcome.definition ?? '(no params)'}:\n  ${outcome.errors.join('\n  ')}`,
    );
  }
}
