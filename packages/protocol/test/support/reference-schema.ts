/**
 * Test-only access to the reference JSON Schemas of Codex app-server (draft-07): the committed
 * 0.130.0 bundle (`test/reference-schema/codex-0.130/`) through the module's functions, and any
 * other generation's bundle through `referenceBundle(dir)` (`reference0171()` for 0.171.0):
 * which methods the reference has, and validation of a payload against the reference definition
 * of a method's params or result with Ajv. Apps' end-to-end suites import this by relative path.
 * Ajv stays out of the runtime package.
 */
import { existsSync, readFileSync } from 'node:fs';
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

/**
 * Where the 0.171.0 bundle is read from: its committed copy beside the 0.130 one, or, until that
 * copy lands, the directory named by `DEPUTY_REFERENCE_0171_DIR` (a folder holding the reference's
 * `codex_app_server_protocol.schemas.json`, as `generate-json-schema --experimental` writes it).
 */
export const REFERENCE_0171_DIR = fileURLToPath(new URL('../reference-schema/codex-0.171/', import.meta.url));

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
  'accountSession/list': 'AccountSessionListResponse',
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
function readUnion(definitions: JsonObject, union: string, withResult: boolean, strictResults: boolean): Map<string, MethodEntry> {
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
      if (result === null && strictResults) throw new Error(`reference schema: no result definition for ${method}`);
    }
    methods.set(method, { params, result });
  }
  return methods;
}

function isInteger(value: number): boolean {
  return Number.isSafeInteger(value);
}

function loadIndex(dir: string, bundleId: string, strictResults: boolean): ReferenceIndex {
  // Later bundles write `type: ["string", "null"]`-style unions under `anyOf`, which strict Ajv refuses.
  const allowUnionTypes = !strictResults;
  const bundle = asObject(
    JSON.parse(readFileSync(`${dir}codex_app_server_protocol.schemas.json`, 'utf8')),
    'bundle',
  );
  const definitions = asObject(bundle['definitions'], 'definitions');
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes });
  addFormats.default(ajv);
  // The Rust generator tags integers with their width; Ajv does not know these formats.
  const ranges: Record<string, [number, number]> = {
    int8: [-128, 127],
    int16: [-32768, 32767],
    int32: [-2147483648, 2147483647],
    int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
    uint: [0, Number.MAX_SAFE_INTEGER],
    uint8: [0, 255],
    uint16: [0, 65535],
    uint32: [0, 4294967295],
    uint64: [0, Number.MAX_SAFE_INTEGER],
  };
  for (const [format, [min, max]] of Object.entries(ranges)) {
    ajv.addFormat(format, { type: 'number', validate: (n: number) => isInteger(n) && n >= min && n <= max });
  }
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addSchema(bundle, bundleId);
  return {
    ajv,
    clientRequests: readUnion(definitions, 'ClientRequest', true, strictResults),
    serverNotifications: readUnion(definitions, 'ServerNotification', false, false),
    serverRequests: readUnion(definitions, 'ServerRequest', true, strictResults),
    clientNotifications: readUnion(definitions, 'ClientNotification', false, false),
  };
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '/' : error.instancePath;
  const detail = Object.keys(error.params).length === 0 ? '' : ` ${JSON.stringify(error.params)}`;
  return `${where} ${error.message ?? error.keyword}${detail}`;
}

/** One reference bundle, loaded on first use. */
export class ReferenceBundle {
  #loaded: ReferenceIndex | undefined;

  /**
   * `dir` holds `codex_app_server_protocol.schemas.json`; `strictResults` refuses a request
   * without a result definition (0.171's `modelProvider/default/set` declares none).
   */
  constructor(
    readonly dir: string,
    readonly bundleId: string,
    private readonly strictResults = true,
  ) {}

  #index(): ReferenceIndex {
    return (this.#loaded ??= loadIndex(this.dir, this.bundleId, this.strictResults));
  }

  /** The reference's method names for each direction, in the reference's order. */
  methods(): ReferenceMethods {
    const { clientRequests, serverNotifications, serverRequests, clientNotifications } = this.#index();
    return {
      clientRequests: [...clientRequests.keys()],
      serverNotifications: [...serverNotifications.keys()],
      serverRequests: [...serverRequests.keys()],
      clientNotifications: [...clientNotifications.keys()],
    };
  }

  /** True when this reference has `method` for `kind`. */
  has(kind: ReferenceKind, method: string): boolean {
    return this.#table(kind).has(method);
  }

  #table(kind: ReferenceKind): ReadonlyMap<string, MethodEntry> {
    const loaded = this.#index();
    if (kind === 'request' || kind === 'response') return loaded.clientRequests;
    return kind === 'notification' ? loaded.serverNotifications : loaded.serverRequests;
  }

  #entryOf(kind: ReferenceKind, method: string): MethodEntry {
    const entry = this.#table(kind).get(method);
    if (entry === undefined) throw new Error(`the reference has no ${kind} method ${method}`);
    return entry;
  }

  /**
   * The reference definition for `kind` of `method`, e.g. `v2/ThreadStartParams`, or null when the
   * method has no params. Throws for a method the reference does not have.
   */
  definitionOf(kind: ReferenceKind, method: string): string | null {
    const entry = this.#entryOf(kind, method);
    const pointer = kind === 'response' || kind === 'serverResponse' ? entry.result : entry.params;
    return pointer === null ? null : pointer.replace('#/definitions/', '');
  }

  /**
   * Validates `payload` against the reference definition of `kind` for `method`. For a method
   * without params (or, for a response, without a declared result) the payload must be absent
   * (undefined or null), except that a result without a declared type may be `{}`. Throws for a
   * method the reference does not have.
   */
  validate(kind: ReferenceKind, method: string, payload: unknown): ReferenceValidation {
    const entry = this.#entryOf(kind, method);
    const isResult = kind === 'response' || kind === 'serverResponse';
    const pointer = isResult ? entry.result : entry.params;
    if (pointer === null) {
      const isEmpty = typeof payload === 'object' && payload !== null && Object.keys(payload).length === 0;
      const valid = payload === undefined || payload === null || (isResult && isEmpty);
      return { valid, definition: null, errors: valid ? [] : ['/ the reference defines no payload for this method'] };
    }
    const validate = this.#index().ajv.getSchema(`${this.bundleId}${pointer}`);
    if (validate === undefined) throw new Error(`reference schema: cannot compile ${pointer}`);
    // The reference has no `$async` schemas, so validation is synchronous.
    const valid = validate(payload) === true;
    return {
      valid,
      definition: pointer.replace('#/definitions/', ''),
      errors: valid ? [] : (validate.errors ?? []).map(describeError),
    };
  }

  /** Like `validate`, but throws an Error listing the problems when invalid. */
  assertMatches(kind: ReferenceKind, method: string, payload: unknown): void {
    const outcome = this.validate(kind, method, payload);
    if (!outcome.valid) {
      throw new Error(
        `${kind} ${method} does not match reference ${outcome.definition ?? '(no params)'}:\n  ${outcome.errors.join('\n  ')}`,
      );
    }
  }
}

/** The committed 0.130.0 reference. */
export const REFERENCE_0130 = new ReferenceBundle(REFERENCE_SCHEMA_DIR, 'codex-app-server-0.130');

let bundle0171: ReferenceBundle | undefined;

/**
 * The 0.171.0 reference (see `REFERENCE_0171_DIR`); throws when neither its committed copy nor
 * `DEPUTY_REFERENCE_0171_DIR` is there, so a test that needs it fails instead of passing unchecked.
 */
export function reference0171(): ReferenceBundle {
  if (bundle0171 !== undefined) return bundle0171;
  const fromEnv = process.env['DEPUTY_REFERENCE_0171_DIR'];
  const dir = existsSync(REFERENCE_0171_DIR) ? REFERENCE_0171_DIR : fromEnv ? `${fromEnv.replace(/\/$/, '')}/` : null;
  if (dir === null) throw new Error(`the 0.171 reference schema is missing: commit it at ${REFERENCE_0171_DIR} or set DEPUTY_REFERENCE_0171_DIR`);
  return (bundle0171 = new ReferenceBundle(dir, 'codex-app-server-0.171', false));
}

/** The reference's method names for each direction, in the reference's order. */
export function referenceMethods(): ReferenceMethods {
  return REFERENCE_0130.methods();
}

/**
 * The reference definition for `kind` of `method`, e.g. `v2/ThreadStartParams`, or null when the
 * method has no params. Throws for a method the reference does not have.
 */
export function referenceDefinitionOf(kind: ReferenceKind, method: string): string | null {
  return REFERENCE_0130.definitionOf(kind, method);
}

/**
 * Validates `payload` against the 0.130 reference definition of `kind` for `method`. For a method
 * without params the payload must be absent (undefined or null). Throws for a method the
 * reference does not have.
 */
export function validateAgainstReference(kind: ReferenceKind, method: string, payload: unknown): ReferenceValidation {
  return REFERENCE_0130.validate(kind, method, payload);
}

/** Like `validateAgainstReference`, but throws an Error listing the problems when invalid. */
export function assertMatchesReference(kind: ReferenceKind, method: string, payload: unknown): void {
  REFERENCE_0130.assertMatches(kind, method, payload);
}
