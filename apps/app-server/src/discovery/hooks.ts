/**
 * Hook discovery for `hooks/list`: the `[hooks]` table of the user's config.toml (and of `-c`
 * overrides) and `<home>/hooks.json` (`{"hooks": {...}}`), in Codex's format: event name
 * (`PreToolUse`, `PostToolUse`, `SessionStart`, `UserPromptSubmit`, `Stop`, …) → matcher groups
 * `{matcher?, hooks: [{type: "command", command, timeout?, statusMessage?}]}`. Malformed entries
 * become warnings. Deputy's engine lists hooks but does not run them yet, and every entry list
 * says so in its warnings, so no client mistakes a listed hook for an active one.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ResolvedConfig } from '@deputy/engine';
import type { AppServer } from '@deputy/protocol';
import { canonicalJson } from '../project/config.js';

/** The warning attached whenever hooks are configured. */
export const HOOKS_NOT_RUN_WARNING = 'Deputy lists configured hooks but does not run them yet';

/** Codex's hook event names → the wire's. */
const EVENT_NAMES: Record<string, AppServer.HookMetadata['eventName']> = {
  PreToolUse: 'preToolUse',
  PermissionRequest: 'permissionRequest',
  PostToolUse: 'postToolUse',
  PreCompact: 'preCompact',
  PostCompact: 'postCompact',
  SessionStart: 'sessionStart',
  UserPromptSubmit: 'userPromptSubmit',
  Stop: 'stop',
};

/** Default hook timeout in seconds (Codex's). */
const DEFAULT_TIMEOUT_SEC = 600;

const HandlerSchema = z.looseObject({
  type: z.enum(['command', 'prompt', 'agent']).default('command'),
  command: z.string().optional(),
  timeout: z.number().int().min(0).optional(),
  timeoutSec: z.number().int().min(0).optional(),
  timeout_sec: z.number().int().min(0).optional(),
  statusMessage: z.string().optional(),
  status_message: z.string().optional(),
});

const GroupSchema = z.looseObject({ matcher: z.string().nullish(), hooks: z.array(HandlerSchema).default([]) });

const EventsSchema = z.record(z.string(), z.array(GroupSchema));

interface Source {
  table: unknown;
  path: string;
  source: AppServer.HookMetadata['source'];
}

function hookEntries(src: Source, order: { next: number }, warnings: string[]): AppServer.HookMetadata[] {
  const parsed = EventsSchema.safeParse(src.table);
  if (!parsed.success) {
    warnings.push(`failed to parse hooks in ${src.path}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return [];
  }
  const out: AppServer.HookMetadata[] = [];
  for (const [event, groups] of Object.entries(parsed.data)) {
    const eventName = EVENT_NAMES[event];
    if (!eventName) {
      warnings.push(`unknown hook event \`${event}\` in ${src.path}`);
      continue;
    }
    groups.forEach((group, g) =>
      group.hooks.forEach((handler, h) => {
        out.push({
          key: `${src.path}:${eventName}:${g}:${h}`,
          eventName,
          handlerType: handler.type,
          matcher: group.matcher ?? null,
          command: handler.command ?? null,
          statusMessage: handler.statusMessage ?? handler.status_message ?? null,
          timeoutSec: handler.timeout ?? handler.timeoutSec ?? handler.timeout_sec ?? DEFAULT_TIMEOUT_SEC,
          enabled: true,
          isManaged: false,
          source: src.source,
          sourcePath: src.path,
          pluginId: null,
          displayOrder: order.next++,
          currentHash: `sha256:${createHash('sha256').update(canonicalJson(handler)).digest('hex')}`,
          trustStatus: 'trusted',
        });
      }),
    );
  }
  return out;
}

async function readHooksJson(file: string, warnings: string[]): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`failed to read hooks config ${file}: ${(e as Error).message}`);
    return undefined;
  }
  try {
    return (JSON.parse(text) as { hooks?: unknown }).hooks;
  } catch (e) {
    warnings.push(`failed to parse hooks config ${file}: ${(e as Error).message}`);
    return undefined;
  }
}

/** The hooks configured for `cwd` (the same for every cwd: project hooks are not read). */
export async function discoverHooks(config: ResolvedConfig, cwd: string): Promise<AppServer.HooksListResult['data'][number]> {
  const warnings: string[] = [];
  const sessionHooks = config.sources.overrideLayers.map((l) => l.table.hooks).filter((t) => t !== undefined);
  const jsonFile = path.join(config.home, 'hooks.json');
  const sources: Source[] = [
    { table: config.sources.fileTable.hooks, path: config.configPath, source: 'user' },
    { table: await readHooksJson(jsonFile, warnings), path: jsonFile, source: 'user' },
    ...sessionHooks.map((table): Source => ({ table, path: config.configPath, source: 'sessionFlags' })),
  ];
  const order = { next: 0 };
  const hooks = sources.filter((s) => s.table !== undefined).flatMap((s) => hookEntries(s, order, warnings));
  if (hooks.length > 0) warnings.unshift(HOOKS_NOT_RUN_WARNING);
  return { cwd, hooks, warnings, errors: [] };
}
