/**
 * Validation of server→client traffic against the committed 0.171 reference bundle
 * (`packages/protocol/test/reference-schema/codex-0.171/`), for the tests of client tools,
 * questions and client-run processes: a notification's or server request's params, or a
 * response's result, checked with Ajv against the definition the bundle's unions name. A method
 * the 0.171 reference does not have is skipped. (The harness's `WireValidator` checks 0.130.)
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { isJsonRpcNotification, isJsonRpcRequest, type JsonRpcMessage } from '@deputy/protocol';

const BUNDLE = new URL('../../../../packages/protocol/test/reference-schema/codex-0.171/codex_app_server_protocol.schemas.json', import.meta.url);
const ID = 'codex-0.171';

type Json = Record<string, unknown>;

interface Index {
  ajv: Ajv;
  /** `<union>:<method>` → JSON pointer of its params (or, for `ClientRequest:…:result`, result). */
  pointers: Map<string, string>;
}

let index: Index | undefined;

function load(): Index {
  if (index) return index;
  const bundle = JSON.parse(readFileSync(BUNDLE, 'utf8')) as Json;
  const defs = bundle.definitions as Json;
  const v2 = defs.v2 as Json;
  const pointerOf = (name: string): string | null => (name in v2 ? `#/definitions/v2/${name}` : name in defs ? `#/definitions/${name}` : null);
  const pointers = new Map<string, string>();
  for (const union of ['ServerNotification', 'ServerRequest', 'ClientRequest']) {
    for (const variant of (defs[union] as { oneOf: Json[] }).oneOf) {
      const props = variant.properties as Json;
      const method = ((props.method as Json).enum as string[])[0] as string;
      const ref = (props.params as Json | undefined)?.$ref as string | undefined;
      const name = ref?.split('/').pop();
      if (!name) continue;
      const params = pointerOf(name);
      if (params) pointers.set(`${union}:${method}`, params);
      const result = pointerOf(name.replace(/Params$/, 'Response'));
      if (result) pointers.set(`${union}:${method}:result`, result);
    }
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  for (const format of ['int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'double']) ajv.addFormat(format, { type: 'number', validate: () => true });
  ajv.addSchema(bundle, ID);
  index = { ajv, pointers };
  return index;
}

/** Problems of one payload against a 0.171 definition (`[]` when valid or the method is absent there). */
export function problems0171(union: 'ServerNotification' | 'ServerRequest' | 'ClientRequest', method: string, payload: unknown, isResult = false): string[] {
  const { ajv, pointers } = load();
  const pointer = pointers.get(`${union}:${method}${isResult ? ':result' : ''}`);
  if (!pointer) return [];
  const validate = ajv.getSchema(`${ID}${pointer}`);
  if (!validate) return [`${method}: cannot compile ${pointer}`];
  if (validate(payload) === true) return [];
  return (validate.errors ?? []).map((e) => `${union} ${method}: ${e.instancePath || '/'} ${e.message ?? e.keyword}`);
}

/** Problems of a message the server sent, against 0.171 (responses need the request's method). */
export function serverMessageProblems0171(message: JsonRpcMessage, requestMethod?: string): string[] {
  if (isJsonRpcRequest(message)) return problems0171('ServerRequest', message.method, message.params);
  if (isJsonRpcNotification(message)) return problems0171('ServerNotification', message.method, message.params);
  if ('result' in message && requestMethod) return problems0171('ClientRequest', requestMethod, message.result, true);
  return [];
}
