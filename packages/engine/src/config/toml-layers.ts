/**
 * The raw layers a configuration is built from, as TOML tables: the `config.toml` text, `-c
 * dotted.key=value` overrides, and dotted/nested override objects from front doors. Also the
 * table helpers (deep merge, key paths) the resolver uses. Knows no key names and validates
 * nothing beyond TOML syntax; `schema.ts` does that.
 */
import { parse, TomlError } from 'smol-toml';
import { overrideSyntaxError } from './config-args.js';
import { ConfigError } from './errors.js';

/** A TOML table (string keys, TOML values). */
export type TomlTable = Record<string, unknown>;

/** True for a plain table value (not an array, date or scalar). */
export function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Parses config file text; a syntax error becomes a `ConfigError` naming the file and line. */
export function parseConfigToml(text: string, file: string): TomlTable {
  try {
    return parse(text) as TomlTable;
  } catch (e) {
    if (e instanceof TomlError) {
      const detail = (e.message.split('\n')[0] ?? e.message).replace(/^Invalid TOML document:\s*/, '');
      const block = e.codeblock ? `\n${e.codeblock.trimEnd()}` : '';
      throw new ConfigError(`${file}:${e.line}:${e.column}: invalid TOML: ${detail}${block}`);
    }
    throw new ConfigError(`${file}: invalid TOML: ${(e as Error).message}`);
  }
}

/**
 * Parses one `-c key=value` override into a nested table. The value is read as TOML
 * (`x = <value>`); when that fails it is taken as a raw string with surrounding quotes removed,
 * so `-c model=gpt-5` works unquoted (the reference behaves the same).
 */
export function parseCliOverride(raw: string): TomlTable {
  const syntaxError = overrideSyntaxError(raw);
  if (syntaxError !== null) throw new ConfigError(syntaxError, 'override-syntax', raw);
  const eq = raw.indexOf('=');
  let keyPath: string[];
  try {
    keyPath = splitKeyPath(raw.slice(0, eq).trim(), `-c ${raw}`);
  } catch (e) {
    throw e instanceof ConfigError ? new ConfigError(e.message, 'override-syntax', raw) : e;
  }
  const valueText = raw.slice(eq + 1).trim();
  let value: unknown;
  try {
    value = (parse(`x = ${valueText}`) as TomlTable).x;
  } catch {
    value = valueText.replace(/^["']|["']$/g, '');
  }
  return nestedFromPath(keyPath, value);
}

/**
 * Turns an override object whose keys may be dotted (`{"sandbox_workspace_write.network_access":
 * true}`) or nested into one nested table; later keys win, tables merge.
 */
export function nestedFromDotted(object: Record<string, unknown>, label: string): TomlTable {
  let result: TomlTable = {};
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue;
    const inner = isTable(value) ? nestedFromDotted(value, label) : value;
    result = deepMerge(result, nestedFromPath(splitKeyPath(key, label), inner));
  }
  return result;
}

/** Merges `over` onto `base`: tables merge key by key, anything else in `over` replaces. */
export function deepMerge(base: TomlTable, over: TomlTable): TomlTable {
  const out: TomlTable = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === '__proto__') continue; // never let a config key reach the prototype
    const existing = out[key];
    out[key] = isTable(existing) && isTable(value) ? deepMerge(existing, value) : value;
  }
  return out;
}

/**
 * Splits a dotted key path; segments may be double-quoted to contain dots
 * (`projects."/home/me/app".trust_level`). Empty segments are an error.
 */
export function splitKeyPath(key: string, label: string): string[] {
  const segments: string[] = [];
  let current = '';
  let quoted = false;
  let wasQuoted = false;
  for (const c of key) {
    if (c === '"') {
      quoted = !quoted;
      wasQuoted = true;
    } else if (c === '.' && !quoted) {
      segments.push(checkSegment(current, wasQuoted, key, label));
      current = '';
      wasQuoted = false;
    } else {
      current += c;
    }
  }
  if (quoted) throw new ConfigError(`${label}: unterminated quote in key "${key}"`);
  segments.push(checkSegment(current, wasQuoted, key, label));
  return segments;
}

function checkSegment(segment: string, wasQuoted: boolean, key: string, label: string): string {
  const trimmed = wasQuoted ? segment : segment.trim();
  if (trimmed === '' && !wasQuoted) throw new ConfigError(`${label}: empty segment in key "${key}"`);
  return trimmed;
}

/** Formats a key path for messages: `model_providers."my.host".base_url`, `writable_roots[1]`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const s = String(segment);
      const bare = /^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s);
      out += out === '' ? bare : `.${bare}`;
    }
  }
  return out === '' ? '(top level)' : out;
}

function nestedFromPath(path: readonly string[], value: unknown): TomlTable {
  let result: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) result = { [path[i] as string]: result };
  return result as TomlTable;
}
