/**
 * Test-only access to the committed reference JSON Schemas of Codex app-server 0.130.0 and
 * 0.171.0 (`test/reference-schema/codex-<version>/`, draft-07): which methods each reference has,
 * and validation of a payload against a reference definition of a method's params or result
 * with Ajv: against one version (0.130 unless told), or against every version that has the
 * method (`validateAgainstEveryReference`); against a definition named directly
 * (`problemsAgainstDefinition`, e.g. `HookStartedNotification`); or of a whole message a server
 * sent (`serverMessageProblems`). This is the one reference-schema validator of the repository:
 * apps' suites import it by relative path. Ajv stays out of the runtime package.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { isJsonRpcNotification, isJsonRpcRequest, type JsonRpcMessage } from '../../src/jsonrpc.js';

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

/** The reference versions kept: 0.130 (the 0.130 clients' contract) and 0.171 (current clients'). */
export const REFERENCE_VERSIONS = ['0.130', '0.171'] as const;
/** One kept reference version. */
export type ReferenceVersion = (typeof REFERENCE_VERSIONS)[number];

/** Directory of a committed reference schema. */
export function referenceSchemaDir(version: ReferenceVersion): string {
  return fileURLToPath(new URL(`../reference-schema/codex-${version}/`, import.meta.url));
}

/** Directory of the committed 0.130 reference schema. */
export const REFERENCE_SCHEMA_DIR = referenceSchemaDir('0.130');

const bundleId = (version: ReferenceVersion): string => `codex-app-server-${version}`;

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
  'rollout/compress': 'RolloutCompressResponse',
  'accountSession/list': 'AccountSessionsResponse',
  'account/gatewayOAuth/cancel': 'GatewayOAuthCancelResponse',
  'remoteControl/enable': 'RemoteControlEnableResponse',
  'remoteControl/disable': 'RemoteControlDisableResponse',
  'remoteControl/status/read': 'RemoteControlStatusReadResponse',
  'account/securitySetup/read': 'GetAccountSecuritySetupResponse',
  'account/workspaceMessages/read': 'GetWorkspaceMessagesResponse',
  'externalAgentConfig/import/readHistories': 'ExternalAgentConfigImportHistoriesReadResponse',
};

/** Methods the 0.171 reference declares without a result type (answered with `{}`). */
const NO_RESULT_DEFINITION: ReadonlySet<string> = new Set(['modelProvider/default/set']);

interface JsonObject {
  readonly [key: string]: unknown;
}

interface MethodEntry {
  /** JSON pointer of the params definition inside the bundle, or null without params. */
  readonly params: string | null;
  /** JSON pointer of the result definition, for requests. */
  readonly result: string | null;
  /** The message may omit `params` (0.171 marks such params nullable). */
  readonly paramsOptional: boolean;
}

interface ReferenceIndex {
  readonly version: ReferenceVersion;
  readonly ajv: Ajv;
  /** The bundle's `definitions`. */
  readonly definitions: JsonObject;
  readonly clientRequests: ReadonlyMap<string, MethodEntry>;
  readonly serverNotifications: ReadonlyMap<string, MethodEntry>;
  readonly serverRequests: ReadonlyMap<string, MethodEntry>;
  readonly clientNotifications: ReadonlyMap<string, MethodEntry>;
}

const indexes = new Map<ReferenceVersion, ReferenceIndex>();

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
  for (const [position, variant] of variants.entries()) {
    const properties = asObject(asObject(variant, union)['properties'], `${union} properties`);
    const methodEnum = asObject(properties['method'], `${union} method`)['enum'];
    const method = Array.isArray(methodEnum) ? methodEnum[0] : undefined;
    if (typeof method !== 'string') throw new Error(`reference schema: ${union} variant without method`);
    const paramsSchema = properties['params'] === undefined ? null : asObject(properties['params'], 'params');
    // 0.171 also writes optional params inline: `{anyOf: [{$ref: …Params}, {type: "null"}]}`.
    const nullable = paramsSchema?.['anyOf'];
    const ref = Array.isArray(nullable)
      ? nullable.map((option) => asObject(option, 'params option')['$ref']).find((r) => typeof r === 'string')
      : paramsSchema?.['$ref'];
    const paramsName = typeof ref === 'string' ? (ref.split('/').pop() ?? null) : null;
    const params =
      paramsName === null
        ? null
        : Array.isArray(nullable)
          ? `#/definitions/${union}/oneOf/${position}/properties/params`
          : pointerOf(definitions, paramsName);
    let result: string | null = null;
    if (withResult) {
      const resultName = RESPONSE_OVERRIDES[method] ?? paramsName?.replace(/Params$/, 'Response');
      result = resultName === undefined ? null : pointerOf(definitions, resultName);
      if (result === null && !NO_RESULT_DEFINITION.has(method)) throw new Error(`reference schema: no result definition for ${method}`);
    }
    const required = asObject(variant, union)['required'];
    const paramsOptional = !(Array.isArray(required) && required.includes('params'));
    methods.set(method, { params, result, paramsOptional });
  }
  return methods;
}

function isInteger(value: number): boolean {
  return Number.isSafeInteger(value);
}

function loadIndex(version: ReferenceVersion = '0.130'): ReferenceIndex {
  const loaded = indexes.get(version);
  if (loaded !== undefined) return loaded;
  const bundle = asObject(
    JSON.parse(readFileSync(`${referenceSchemaDir(version)}codex_app_server_protocol.schemas.json`, 'utf8')),
    'bundle',
  );
  const definitions = asObject(bundle['definitions'], 'definitions');
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats.default(ajv);
  // The Rust generator tags integers with their width; Ajv does not know these formats.
  const ranges: Record<string, [number, number]> = {
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
  ajv.addSchema(bundle, bundleId(version));
  const index: ReferenceIndex = {
    version,
    ajv,
    definitions,
    clientRequests: readUnion(definitions, 'ClientRequest', true),
    serverNotifications: readUnion(definitions, 'ServerNotification', false),
    serverRequests: readUnion(definitions, 'ServerRequest', true),
    clientNotifications: readUnion(definitions, 'ClientNotification', false),
  };
  indexes.set(version, index);
  return index;
}

/** A reference's method names for each direction, in that reference's order (0.130 unless told). */
export function referenceMethods(version: ReferenceVersion = '0.130'): ReferenceMethods {
  const { clientRequests, serverNotifications, serverRequests, clientNotifications } = loadIndex(version);
  return {
    clientRequests: [...clientRequests.keys()],
    serverNotifications: [...serverNotifications.keys()],
    serverRequests: [...serverRequests.keys()],
    clientNotifications: [...clientNotifications.keys()],
  };
}

function tableOf(kind: ReferenceKind, version: ReferenceVersion): ReadonlyMap<string, MethodEntry> {
  const loaded = loadIndex(version);
  return kind === 'request' || kind === 'response'
    ? loaded.clientRequests
    : kind === 'notification'
      ? loaded.serverNotifications
      : loaded.serverRequests;
}

/** The kept reference versions that define `method` for `kind`, oldest first. */
export function referenceVersionsOf(kind: ReferenceKind, method: string): ReferenceVersion[] {
  return REFERENCE_VERSIONS.filter((version) => tableOf(kind, version).has(method));
}

function entryOf(kind: ReferenceKind, method: string, version: ReferenceVersion = '0.130'): MethodEntry {
  const entry = tableOf(kind, version).get(method);
  if (entry === undefined) throw new Error(`the ${version} reference has no ${kind} method ${method}`);
  return entry;
}

/**
 * The reference definition for `kind` of `method`, e.g. `v2/ThreadStartParams`, or null when the
 * method has no params. Throws for a method the reference does not have.
 */
export function referenceDefinitionOf(kind: ReferenceKind, method: string, version: ReferenceVersion = '0.130'): string | null {
  const entry = entryOf(kind, method, version);
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
export function validateAgainstReference(
  kind: ReferenceKind,
  method: string,
  payload: unknown,
  version: ReferenceVersion = '0.130',
): ReferenceValidation {
  const entry = entryOf(kind, method, version);
  const isResult = kind === 'response' || kind === 'serverResponse';
  const pointer = isResult ? entry.result : entry.params;
  if (pointer === null && isResult) {
    // A method the reference declares without a result type: any JSON object is its answer.
    const valid = typeof payload === 'object' && payload !== null && !Array.isArray(payload);
    return { valid, definition: null, errors: valid ? [] : ['/ expected an object'] };
  }
  if (pointer === null) {
    const valid = payload === undefined || payload === null;
    return { valid, definition: null, errors: valid ? [] : ['/ the reference defines no params for this method'] };
  }
  const validate = loadIndex(version).ajv.getSchema(`${bundleId(version)}${pointer}`);
  if (validate === undefined) throw new Error(`reference schema: cannot compile ${pointer}`);
  // Absent optional params are what a nullable params schema calls null.
  const value = payload === undefined && !isResult && entry.paramsOptional ? null : payload;
  // The reference has no `$async` schemas, so validation is synchronous.
  const valid = validate(value) === true;
  return {
    valid,
    definition: pointer.replace('#/definitions/', ''),
    errors: valid ? [] : (validate.errors ?? []).map(describe),
  };
}

/** One version's outcome in {@link validateAgainstEveryReference}. */
export interface VersionedValidation extends ReferenceValidation {
  readonly version: ReferenceVersion;
}

/**
 * Validates `payload` against the definition of `kind` for `method` in every kept reference
 * version that has the method (a method only one version has is checked against that one).
 * Throws when no kept version has it.
 */
export function validateAgainstEveryReference(kind: ReferenceKind, method: string, payload: unknown): VersionedValidation[] {
  const versions = referenceVersionsOf(kind, method);
  if (versions.length === 0) throw new Error(`no reference version has ${kind} method ${method}`);
  return versions.map((version) => ({ version, ...validateAgainstReference(kind, method, payload, version) }));
}

/** Like `validateAgainstReference`, but throws an Error listing the problems when invalid. */
export function assertMatchesReference(
  kind: ReferenceKind,
  method: string,
  payload: unknown,
  version: ReferenceVersion = '0.130',
): void {
  const outcome = validateAgainstReference(kind, method, payload, version);
  if (!outcome.valid) {
    throw new Error(
      `${kind} ${method} does not match reference ${version} ${outcome.definition ?? '(no params)'}:\n  ${outcome.errors.join('\n  ')}`,
    );
  }
}

/** Asserts `payload` matches every kept reference version that has `method` (see above). */
export function assertMatchesEveryReference(kind: ReferenceKind, method: string, payload: unknown): void {
  const failed = validateAgainstEveryReference(kind, method, payload).filter((outcome) => !outcome.valid);
  if (failed.length > 0) {
    throw new Error(
      failed
        .map((o) => `${kind} ${method} does not match reference ${o.version} ${o.definition ?? '(no params)'}:\n  ${o.errors.join('\n  ')}`)
        .join('\n'),
    );
  }
}

/**
 * The problems of `payload` against the reference's definition `name` (looked up under `v2/`
 * first, e.g. `HookStartedNotification`, `SkillsListResponse`); empty when it matches. Throws for a
 * name the reference does not define.
 */
export function problemsAgainstDefinition(name: string, payload: unknown, version: ReferenceVersion = '0.130'): string[] {
  const { ajv, definitions } = loadIndex(version);
  const pointer = pointerOf(definitions, name);
  if (pointer === null) throw new Error(`the ${version} reference has no definition ${name}`);
  const validate = ajv.getSchema(`${bundleId(version)}${pointer}`);
  if (validate === undefined) throw new Error(`reference schema: cannot compile ${pointer}`);
  return validate(payload) === true ? [] : (validate.errors ?? []).map((e) => `${name}: ${describe(e)}`);
}

/**
 * The problems of one message a server sent, against the `version` reference: a server request's
 * or notification's params, or a response's result when `requestMethod` (the method it answers)
 * is given. A method that version does not have is skipped (empty), as is an error response.
 */
export function serverMessageProblems(message: JsonRpcMessage, version: ReferenceVersion, requestMethod?: string): string[] {
  const [kind, method, payload]: [ReferenceKind, string, unknown] | [null, null, null] = isJsonRpcRequest(message)
    ? ['serverRequest', message.method, message.params]
    : isJsonRpcNotification(message)
      ? ['notification', message.method, message.params]
      : 'result' in message && requestMethod !== undefined
        ? ['response', requestMethod, message.result]
        : [null, null, null];
  if (kind === null || !tableOf(kind, version).has(method)) return [];
  const outcome = validateAgainstReference(kind, method, payload, version);
  return outcome.errors.map((error) => `${kind} ${method} (reference ${version} ${outcome.definition ?? 'no params'}): ${error}`);
}
