/**
 * Validation against the committed extract of the Codex app-server 0.171.0 JSON Schema
 * (`packages/protocol/test/reference-schema/codex-0.171/v2/`): one self-contained file per type,
 * checked with Ajv (draft-07). Test-only.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

const DIR = fileURLToPath(new URL('../../../../packages/protocol/test/reference-schema/codex-0.171/v2/', import.meta.url));

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
// The Rust generator tags integers with their width; they are checked as non-negative or any integers.
for (const [format, min] of [['int32', -(2 ** 31)], ['int64', Number.MIN_SAFE_INTEGER], ['uint', 0], ['uint16', 0], ['uint32', 0], ['uint64', 0]] as const) {
  ajv.addFormat(format, { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= min });
}
const compiled = new Map<string, ReturnType<Ajv['compile']>>();

/** The problems of `payload` against the 0.171.0 definition `name` (e.g. `HookStartedNotification`); empty when it matches. */
export function problemsAgainst0171(name: string, payload: unknown): string[] {
  let validate = compiled.get(name);
  if (!validate) {
    const schema = JSON.parse(readFileSync(`${DIR}${name}.json`, 'utf8')) as Record<string, unknown>;
    delete schema.$schema;
    validate = ajv.compile(schema);
    compiled.set(name, validate);
  }
  return validate(payload) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}
