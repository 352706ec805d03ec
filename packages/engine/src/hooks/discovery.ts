/**
 * Hook discovery: the hooks configured for a cwd, from every config layer in the reference's
 * forms (`hooks.json` beside the layer's config.toml, and the inline `[hooks]` table): the
 * user layer (`<home>/hooks.json`, `<home>/config.toml`), the project layers of a trusted
 * project (`.codex/hooks.json`, `.codex/config.toml` of each directory from the repository root
 * down to the cwd) and the session flags (`-c hooks.…`). Each handler gets the reference's key
 * (`<source path>:<event_label>:<group>:<handler>`) and a hash of its normalised definition; the
 * trust rule decides what may run: a hook runs only when it is enabled and the config's
 * `hooks.state."<key>".trusted_hash` equals its current hash (a changed hook is `modified`, so
 * untrusted again). Problems are warnings; nothing here throws for a hook.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../config/canonical-json.js';
import type { ResolvedConfig } from '../config/load-config.js';
import { findProjectTrust } from '../config/projects.js';
import { isTable, parseConfigToml } from '../config/toml-layers.js';
import { workspaceDirs } from '../config/workspace.js';
import { SingleFlight } from '../util/single-flight.js';

/** The reference's hook events, by their config name. */
export const HOOK_EVENTS = ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PreCompact', 'PostCompact', 'SessionStart', 'UserPromptSubmit', 'Stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Where a hook was configured. */
export type HookSource = 'user' | 'project' | 'sessionFlags';
/** Whether a hook may run: its hash against the trusted one. */
export type HookTrustStatus = 'trusted' | 'untrusted' | 'modified' | 'managed';

/** Default hook timeout in seconds (the reference's). */
export const DEFAULT_HOOK_TIMEOUT_SEC = 600;

/** The path session-flag hooks are keyed under (the reference's synthetic path). */
export const SESSION_FLAGS_PATH = '/<session-flags>/config.toml';

const HandlerSchema = z.looseObject({
  type: z.enum(['command', 'prompt', 'agent']).default('command'),
  command: z.string().optional(),
  timeout: z.number().int().min(0).optional(),
  timeoutSec: z.number().int().min(0).optional(),
  timeout_sec: z.number().int().min(0).optional(),
  async: z.boolean().optional(),
  statusMessage: z.string().optional(),
  status_message: z.string().optional(),
});
const GroupSchema = z.looseObject({ matcher: z.string().nullish(), hooks: z.array(HandlerSchema).default([]) });
const GroupsSchema = z.array(GroupSchema);
/** One `hooks.state."<key>"` entry. */
const HookStateSchema = z.looseObject({ trusted_hash: z.string().optional(), enabled: z.boolean().optional() });

/** One configured hook handler, as `hooks/list` shows it. */
export interface HookEntry {
  key: string;
  event: HookEvent;
  handlerType: 'command' | 'prompt' | 'agent';
  matcher: string | null;
  command: string | null;
  statusMessage: string | null;
  timeoutSec: number;
  enabled: boolean;
  source: HookSource;
  sourcePath: string;
  displayOrder: number;
  currentHash: string;
  trustStatus: HookTrustStatus;
  /** Whether it runs: an enabled command hook whose hash is trusted. */
  isRunnable: boolean;
}

/** The hooks configured for one cwd. */
export interface HookSet {
  cwd: string;
  hooks: HookEntry[];
  warnings: string[];
}

/** `PreToolUse` → `pre_tool_use`: the label keys and hashes use. */
export function hookEventLabel(event: HookEvent): string {
  return event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The hash of a command hook's normalised definition (event, matcher, command, timeout, async, status message). */
export function hookHash(event: HookEvent, matcher: string | null, handler: { command: string; timeoutSec: number; isAsync: boolean; statusMessage: string | null }): string {
  const identity = {
    event_name: hookEventLabel(event),
    matcher,
    hooks: [{ type: 'command', command: handler.command, timeout: handler.timeoutSec, async: handler.isAsync, statusMessage: handler.statusMessage }],
  };
  return `sha256:${createHash('sha256').update(canonicalJson(identity)).digest('hex')}`;
}

/** One source of hook definitions: an events table and where it came from. */
interface HookSourceTable {
  table: unknown;
  path: string;
  source: HookSource;
}

/** Reads a validated matcher, or a warning when it is not a valid pattern. */
function checkMatcher(matcher: string | null | undefined, file: string, warnings: string[]): string | null | false {
  if (matcher === undefined || matcher === null || matcher === '' || matcher === '*') return matcher ?? null;
  try {
    new RegExp(matcher);
    return matcher;
  } catch (e) {
    warnings.push(`invalid matcher ${JSON.stringify(matcher)} in ${file}: ${(e as Error).message}`);
    return false;
  }
}

function entriesOf(src: HookSourceTable, states: Record<string, z.infer<typeof HookStateSchema>>, order: { next: number }, warnings: string[]): HookEntry[] {
  if (!isTable(src.table)) {
    warnings.push(`failed to parse hooks in ${src.path}: expected a table of events`);
    return [];
  }
  const out: HookEntry[] = [];
  for (const [name, value] of Object.entries(src.table)) {
    if (name === 'state') continue;
    if (!(HOOK_EVENTS as readonly string[]).includes(name)) {
      warnings.push(`unknown hook event \`${name}\` in ${src.path}`);
      continue;
    }
    const event = name as HookEvent;
    const groups = GroupsSchema.safeParse(value);
    if (!groups.success) {
      warnings.push(`failed to parse hooks.${name} in ${src.path}: ${groups.error.issues[0]?.message ?? 'invalid'}`);
      continue;
    }
    groups.data.forEach((group, g) => {
      const matcher = checkMatcher(group.matcher, src.path, warnings);
      if (matcher === false) return;
      group.hooks.forEach((handler, h) => {
        const entry = entryOf(src, event, matcher, handler, `${src.path}:${hookEventLabel(event)}:${g}:${h}`, states, order, warnings);
        if (entry) out.push(entry);
      });
    });
  }
  return out;
}

function entryOf(
  src: HookSourceTable,
  event: HookEvent,
  matcher: string | null,
  handler: z.infer<typeof HandlerSchema>,
  key: string,
  states: Record<string, z.infer<typeof HookStateSchema>>,
  order: { next: number },
  warnings: string[],
): HookEntry | null {
  if (handler.type !== 'command') {
    warnings.push(`skipping ${handler.type} hook in ${src.path}: ${handler.type} hooks are not supported yet`);
    return null;
  }
  const command = handler.command?.trim() ? handler.command : null;
  if (command === null) {
    warnings.push(`skipping empty hook command in ${src.path}`);
    return null;
  }
  const timeoutSec = Math.max(1, handler.timeout ?? handler.timeoutSec ?? handler.timeout_sec ?? DEFAULT_HOOK_TIMEOUT_SEC);
  const statusMessage = handler.statusMessage ?? handler.status_message ?? null;
  const currentHash = hookHash(event, matcher, { command, timeoutSec, isAsync: handler.async ?? false, statusMessage });
  const state = states[key];
  const enabled = state?.enabled !== false;
  const trusted = state?.trusted_hash;
  const trustStatus: HookTrustStatus = trusted === undefined ? 'untrusted' : trusted === currentHash ? 'trusted' : 'modified';
  return {
    key,
    event,
    handlerType: 'command',
    matcher,
    command,
    statusMessage,
    timeoutSec,
    enabled,
    source: src.source,
    sourcePath: src.path,
    displayOrder: order.next++,
    currentHash,
    trustStatus,
    isRunnable: enabled && trustStatus === 'trusted',
  };
}

/** `{"hooks": {...}}` of a hooks.json, or undefined when there is none (a bad file is a warning). */
async function readHooksJson(file: string, warnings: string[]): Promise<unknown> {
  // Usually absent: one stat instead of a rejected read (every turn reads every layer).
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`failed to read hooks config ${file}: ${(e as Error).message}`);
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    return isTable(parsed) ? parsed.hooks : undefined;
  } catch (e) {
    warnings.push(`failed to parse hooks config ${file}: ${(e as Error).message}`);
    return undefined;
  }
}

/** The `[hooks]` table of a project's config.toml, or undefined. */
async function readTomlHooks(file: string, warnings: string[]): Promise<unknown> {
  if (!existsSync(file)) return undefined;
  try {
    return parseConfigToml(await readFile(file, 'utf8'), file).hooks;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`failed to parse TOML hooks in ${file}: ${(e as Error).message}`);
    return undefined;
  }
}

/** The hook definitions of each layer, lowest precedence first (user, project, session flags). */
async function hookSources(config: ResolvedConfig, cwd: string, warnings: string[]): Promise<HookSourceTable[]> {
  const sources: HookSourceTable[] = [];
  const layer = async (jsonFile: string, tomlFile: string, toml: unknown, source: HookSource): Promise<void> => {
    const json = await readHooksJson(jsonFile, warnings);
    if (json !== undefined && toml !== undefined && isTable(toml) && Object.keys(toml).some((k) => k !== 'state')) {
      warnings.push(`loading hooks from both ${jsonFile} and ${tomlFile}; prefer a single representation for this layer`);
    }
    if (json !== undefined) sources.push({ table: json, path: jsonFile, source });
    if (toml !== undefined) sources.push({ table: toml, path: tomlFile, source });
  };
  await layer(path.join(config.home, 'hooks.json'), config.configPath, config.sources.fileTable.hooks, 'user');
  const projects = (config.sources.fileTable.projects ?? {}) as Parameters<typeof findProjectTrust>[0];
  if (findProjectTrust(projects, cwd) === 'trusted') {
    for (const dir of workspaceDirs(cwd)) {
      const dotCodex = path.join(dir, '.codex');
      if (dotCodex === path.dirname(config.configPath)) continue;
      const tomlFile = path.join(dotCodex, 'config.toml');
      await layer(path.join(dotCodex, 'hooks.json'), tomlFile, await readTomlHooks(tomlFile, warnings), 'project');
    }
  }
  for (const override of config.sources.overrideLayers) {
    if (override.table.hooks !== undefined) sources.push({ table: override.table.hooks, path: SESSION_FLAGS_PATH, source: 'sessionFlags' });
  }
  return sources;
}

/** The trust and enablement states of config.toml's `hooks.state` (the user file only, as written by `config/value/write`). */
function hookStates(config: ResolvedConfig): Record<string, z.infer<typeof HookStateSchema>> {
  const hooks = config.sources.fileTable.hooks;
  const table = isTable(hooks) && isTable(hooks.state) ? hooks.state : {};
  const out: Record<string, z.infer<typeof HookStateSchema>> = {};
  for (const [key, value] of Object.entries(table)) {
    const parsed = HookStateSchema.safeParse(value);
    if (parsed.success) out[key] = parsed.data;
  }
  return out;
}

/** The hooks configured for `cwd` under `config`, in display order, with their trust. */
export function discoverHooks(config: ResolvedConfig, cwd: string): Promise<HookSet> {
  // A call made while the same discovery runs gets its result (200 turns starting at once in one
  // directory read the hook files once); a call made after it ended reads them again.
  const target = path.resolve(cwd);
  let byCwd = discoveriesInFlight.get(config);
  if (byCwd === undefined) {
    byCwd = new SingleFlight();
    discoveriesInFlight.set(config, byCwd);
  }
  return byCwd.run(target, () => readHooks(config, target));
}

/** Discoveries in progress, by config and directory. */
const discoveriesInFlight = new WeakMap<ResolvedConfig, SingleFlight<string, HookSet>>();

async function readHooks(config: ResolvedConfig, cwd: string): Promise<HookSet> {
  const warnings: string[] = [];
  const target = path.resolve(cwd);
  const states = hookStates(config);
  const order = { next: 0 };
  const hooks = (await hookSources(config, target, warnings)).flatMap((src) => entriesOf(src, states, order, warnings));
  const review = hooks.filter((h) => h.enabled && h.trustStatus !== 'trusted').length;
  if (review > 0) warnings.push(`${review} hook${review === 1 ? '' : 's'} need review before ${review === 1 ? 'it runs' : 'they run'}: trust ${review === 1 ? 'it' : 'them'} in /hooks (hooks.state."<key>".trusted_hash)`);
  return { cwd: target, hooks, warnings };
}
