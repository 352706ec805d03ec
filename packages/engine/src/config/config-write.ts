/**
 * Edits of the user's config file (`<home>/config.toml`) for front doors that change the config
 * while running, and the reload that picks up the file again. An edit sets, merges or deletes one
 * dotted key path; a list of edits applies entirely or not at all. The file keeps its comments,
 * blank lines and key order (toml-patch rewrites only what changed); the whole result is resolved
 * with the same overrides, profile and environment as the running config before anything is
 * written, and the file is replaced atomically (temp file + rename, mode 0600 when new). Knows no
 * wire names: the caller says how a layer's version is computed, and serializes writes to a file.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { patch, type TomlFormat } from '@decimalturn/toml-patch';
import { InvalidInputError } from '../errors.js';
import { ConfigError } from './errors.js';
import { resolveConfig, type ResolvedConfig } from './resolve-config.js';
import { deepMerge, formatKeyPath, isTable, parseConfigToml, splitKeyPath, type TomlTable } from './toml-layers.js';

/** How an edit's value meets what is there: `upsert` merges a table into an existing table. */
export type ConfigMergeStrategy = 'replace' | 'upsert';

/** One edit of the user config. */
export interface ConfigEdit {
  /** Dotted key path: `tui.animations`, `projects."/abs/dir".trust_level` (quotes keep dots). */
  keyPath: string;
  /** Any JSON value; `null` deletes the key (deleting a missing key changes nothing). */
  value: unknown;
  /** `replace` sets the value; `upsert` deep-merges a table into an existing table, else sets. */
  mergeStrategy: ConfigMergeStrategy;
}

/** Why a write was refused: a bad edit or result, a stale version, or a file other than the user's. */
export type ConfigWriteRefusal = 'validation' | 'versionConflict' | 'readonlyLayer';

/** A refused write; nothing was written. */
export class ConfigWriteError extends InvalidInputError {
  constructor(
    /** What went wrong, for the front door's error code. */
    readonly reason: ConfigWriteRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** What `writeUserConfig` needs besides the running config. */
export interface WriteUserConfigOptions {
  /** Applied in order, all or none; `[]` changes nothing (a missing file is still created). */
  edits: readonly ConfigEdit[];
  /** Refuse unless the file's current table has this version (`versionOf`). */
  expectedVersion?: string | null;
  /** The file the caller means to write; anything but the config's own file is refused. */
  filePath?: string | null;
  /** The version of a user-layer table, as the front door reports it. */
  versionOf(table: TomlTable): string;
  /**
   * Checks the resolved result beyond the resolver (e.g. that the running engine can apply it);
   * a `ConfigError` it throws refuses the write before anything is written.
   */
  check?(next: ResolvedConfig): void;
  /** Layout of new tables: see `applyConfigEdits`. */
  tableSectionDepth?: number;
}

/** An edited key that an override layer (`-c`, `--model`) still decides. */
export interface OverriddenKey {
  /** The edit's key path as given. */
  keyPath: string;
  /** The value in force at that path (file and overrides merged). */
  effectiveValue: unknown;
}

/** The outcome of a successful write. */
export interface UserConfigWrite {
  /** The running config re-resolved with the new file (same overrides, profile, cwd, env). */
  config: ResolvedConfig;
  /** `versionOf` the new file's table. */
  version: string;
  /** The first edit whose key an override layer decides, or null. */
  overridden: OverriddenKey | null;
}

const NOT_THE_USER_FILE = 'Only writes to the user config are allowed';
const STALE_VERSION = 'Configuration was modified since last read. Fetch latest version and retry.';

/**
 * Applies `options.edits` to the config file of `config` and returns the re-resolved config.
 * Throws `ConfigWriteError` (nothing written) for a bad key path or value, a result the resolver
 * rejects, a stale `expectedVersion` or another `filePath`; I/O failures propagate as they are.
 */
export async function writeUserConfig(config: ResolvedConfig, options: WriteUserConfigOptions): Promise<UserConfigWrite> {
  if (options.filePath !== undefined && options.filePath !== null && !(await isSameFile(options.filePath, config.configPath))) {
    throw new ConfigWriteError('readonlyLayer', NOT_THE_USER_FILE);
  }
  // A symlinked config.toml (dotfile managers) is written through, not replaced by a file.
  const target = await fs.realpath(config.configPath).catch(() => config.configPath);
  const original = await readIfExists(target);
  const table = parseForWrite(original ?? '', config.configPath);
  if (options.expectedVersion !== undefined && options.expectedVersion !== null && options.expectedVersion !== options.versionOf(table)) {
    throw new ConfigWriteError('versionConflict', STALE_VERSION);
  }
  const text = applyConfigEdits(original ?? '', options.edits, config.configPath, options.tableSectionDepth);
  const written = parseConfigToml(text, config.configPath);
  const next = resolveWith(config, written);
  if (options.check) {
    try {
      options.check(next);
    } catch (e) {
      if (e instanceof ConfigError) throw invalid(`Invalid configuration: ${e.message}`);
      throw e;
    }
  }
  if (original === null || text !== original) await writeAtomically(target, text);
  return {
    config: next,
    version: options.versionOf(written),
    overridden: findOverridden(next, options.edits),
  };
}

/**
 * Reads the config file of `config` again and re-resolves it with the same overrides, profile
 * and environment; returns `config` itself when the file's table has not changed. Throws
 * `ConfigError` when the file no longer parses or resolves.
 */
export async function reloadUserConfig(config: ResolvedConfig): Promise<ResolvedConfig> {
  const text = await readIfExists(config.configPath);
  const table = text === null ? {} : parseConfigToml(text, config.configPath);
  if (isSameValue(table, config.sources.fileTable)) return config;
  return resolveConfig({ ...config.sources, fileTable: table });
}

/**
 * The TOML text `text` becomes with `edits` applied, formatting kept: only changed keys are
 * rewritten, new keys go to the end of their table and new tables to the end of the file, and a
 * deleted key takes the comment lines directly above it along. Returns `text` unchanged when the
 * edits change no value. Throws `ConfigWriteError` (`validation`) for a bad key path or value
 * and for `text` that is not valid TOML. `file` names the file in messages. New tables down to
 * nesting depth `tableSectionDepth` (default 1: top-level tables) are written as `[a.b]`
 * sections, deeper ones inline (2 writes `[mcp_servers.<name>]` sections).
 */
export function applyConfigEdits(text: string, edits: readonly ConfigEdit[], file: string, tableSectionDepth?: number): string {
  const before = parseForWrite(text, file);
  const after = parseForWrite(text, file);
  for (const edit of edits) applyEdit(after, edit);
  if (isSameValue(before, after)) return text;
  return renderToml(text, after, file, tableSectionDepth === undefined ? LAYOUTS : [{ inlineTableStart: tableSectionDepth }, ...LAYOUTS]);
}

function parseForWrite(text: string, file: string): TomlTable {
  try {
    return parseConfigToml(text, file);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigWriteError('validation', `Invalid configuration: ${e.message}`);
    throw e;
  }
}

function resolveWith(config: ResolvedConfig, fileTable: TomlTable): ResolvedConfig {
  try {
    return resolveConfig({ ...config.sources, fileTable });
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigWriteError('validation', `Invalid configuration: ${e.message}`);
    throw e;
  }
}

function invalid(message: string): ConfigWriteError {
  return new ConfigWriteError('validation', message);
}

/** The segments of a key path; `""`, empty segments and `__proto__` are refused. */
function keySegments(keyPath: string): string[] {
  if (keyPath.trim() === '') throw invalid('keyPath must not be empty');
  let segments: string[];
  try {
    segments = splitKeyPath(keyPath, 'keyPath');
  } catch (e) {
    if (e instanceof ConfigError) throw invalid(e.message);
    throw e;
  }
  if (segments.includes('__proto__')) throw invalid(`keyPath: "__proto__" is not allowed (in key "${keyPath}")`);
  return segments;
}

function applyEdit(root: TomlTable, edit: ConfigEdit): void {
  const segments = keySegments(edit.keyPath);
  const last = segments.pop() as string;
  if (edit.value === null) {
    const parent = tableAt(root, segments);
    if (parent !== undefined) delete parent[last];
    return;
  }
  const value = tomlValueOf(edit.value, edit.keyPath);
  let table = root;
  for (const [i, segment] of segments.entries()) {
    const next = table[segment];
    if (next === undefined) table = table[segment] = Object.create(null) as TomlTable;
    else if (isTable(next)) table = next;
    else throw invalid(`cannot set ${edit.keyPath}: ${formatKeyPath(segments.slice(0, i + 1))} is not a table`);
  }
  const existing = table[last];
  table[last] = edit.mergeStrategy === 'upsert' && isTable(existing) && isTable(value) ? deepMerge(existing, value) : value;
}

function tableAt(root: TomlTable, segments: readonly string[]): TomlTable | undefined {
  let current: unknown = root;
  for (const segment of segments) current = isTable(current) ? current[segment] : undefined;
  return isTable(current) ? current : undefined;
}

/** A JSON value as a TOML value; TOML has no null, so only a whole value may be null (delete). */
function tomlValueOf(value: unknown, keyPath: string): unknown {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
      throw invalid(`invalid value for ${keyPath}: ${String(value)} is out of range`);
    }
    return value;
  }
  if (value === null) throw invalid(`invalid value for ${keyPath}: TOML has no null (a null value deletes the whole key)`);
  if (Array.isArray(value)) return value.map((item) => tomlValueOf(item, keyPath));
  if (typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    const table = Object.create(null) as TomlTable;
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') throw invalid(`invalid value for ${keyPath}: "__proto__" is not allowed as a key`);
      table[key] = tomlValueOf(item, keyPath);
    }
    return table;
  }
  throw invalid(`invalid value for ${keyPath}: not a JSON value`);
}

/**
 * Default layout first (new nested tables inline, as `[a]` + `b = { … }`); toml-patch 3.3 cannot
 * add a top-level array of tables that way, so an all-inline layout is the fallback.
 */
const LAYOUTS: readonly Partial<TomlFormat>[] = [{}, { inlineTableStart: 0 }];

/** Patches `text` to `table`, checking that the new text parses back to exactly `table`. */
function renderToml(text: string, table: TomlTable, file: string, layouts: readonly Partial<TomlFormat>[]): string {
  // An empty file gives no trailing newline to detect; write one, as every editor does.
  const base: Partial<TomlFormat> = text.trim() === '' ? { trailingNewline: 1 } : {};
  for (const layout of layouts) {
    let out: string;
    try {
      out = patch(text, table, { ...base, ...layout });
    } catch {
      continue;
    }
    if (isSameValue(parseConfigToml(out, file), table)) return out;
  }
  throw new Error(`${file}: cannot write this edit without changing other values`);
}

/** Deep equality of TOML values, ignoring prototypes (parsed tables have none). */
function isSameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.constructor === b.constructor && a.toISOString() === b.toISOString();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => isSameValue(item, b[i]));
  }
  if (isTable(a) || isTable(b)) {
    if (!isTable(a) || !isTable(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && isSameValue(a[key], b[key]));
  }
  return Object.is(a, b);
}

/**
 * Reference rule (codex config service): an edited key is overridden when an override layer sets
 * it and the value in force differs from the file's (or the file no longer has it).
 */
function findOverridden(config: ResolvedConfig, edits: readonly ConfigEdit[]): OverriddenKey | null {
  const overrides = config.sources.overrideLayers.reduce<TomlTable>((acc, layer) => deepMerge(acc, layer.table), {});
  if (Object.keys(overrides).length === 0) return null;
  const effective = deepMerge(config.sources.fileTable, overrides);
  for (const edit of edits) {
    const segments = keySegments(edit.keyPath);
    if (valueAt(overrides, segments) === undefined) continue;
    const fileValue = valueAt(config.sources.fileTable, segments);
    const effectiveValue = valueAt(effective, segments);
    if (fileValue !== undefined && isSameValue(fileValue, effectiveValue)) continue;
    return { keyPath: edit.keyPath, effectiveValue };
  }
  return null;
}

function valueAt(table: TomlTable, segments: readonly string[]): unknown {
  const parent = tableAt(table, segments.slice(0, -1));
  return parent === undefined ? undefined : parent[segments[segments.length - 1] as string];
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** True when `candidate` names `file`: the same absolute path, or the same file after symlinks. */
async function isSameFile(candidate: string, file: string): Promise<boolean> {
  if (!path.isAbsolute(candidate)) return false;
  if (path.resolve(candidate) === path.resolve(file)) return true;
  const [a, b] = await Promise.all([canonicalPath(candidate), canonicalPath(file)]);
  return a === b;
}

/** The real path, or for a missing file its real directory plus its name. */
async function canonicalPath(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch {
    const dir = await fs.realpath(path.dirname(file)).catch(() => path.resolve(path.dirname(file)));
    return path.join(dir, path.basename(file));
  }
}

/** Writes a temp file next to `file` (its mode, or 0600 when new) and renames it over `file`. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const mode = await fs.stat(file).then(
    (stat) => stat.mode & 0o777,
    () => 0o600,
  );
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await fs.open(temp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode); // the umask may have narrowed the mode given to open
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch (e) {
    await fs.rm(temp, { force: true });
    throw e;
  }
}
