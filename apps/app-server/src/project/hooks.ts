/**
 * Engine skills and hooks → their app-server wire shapes: a hook run (`HookRunSummary`, times in
 * whole Unix seconds), a discovered skill (`SkillMetadata`) and a configured hook
 * (`HookMetadata`, event names in camelCase). Pure functions.
 */
import type { HookEntry, SkillSet } from '@deputy/engine';
import { wholeSeconds } from '@deputy/engine/facts';
import type { AppServer, HookRun } from '@deputy/protocol';

/** An engine hook run as the wire's `HookRunSummary`. */
export function projectHookRun(run: HookRun): AppServer.HookRunSummary {
  return {
    id: run.id,
    eventName: run.eventName,
    handlerType: run.handlerType,
    executionMode: run.executionMode,
    scope: run.scope,
    source: run.source,
    sourcePath: run.sourcePath,
    displayOrder: run.displayOrder,
    status: run.status,
    statusMessage: run.statusMessage,
    startedAt: wholeSeconds(run.startedAtMs),
    completedAt: run.completedAtMs === null ? null : wholeSeconds(run.completedAtMs),
    durationMs: run.durationMs,
    entries: run.entries,
  };
}

/** The skills of one cwd as a `skills/list` entry. */
export function projectSkillSet(set: SkillSet): AppServer.SkillsListResult['data'][number] {
  return {
    cwd: set.cwd,
    skills: set.skills.map((s) => ({
      name: s.name,
      description: s.description,
      ...(s.shortDescription ? { shortDescription: s.shortDescription } : {}),
      interface: null,
      path: s.path,
      scope: s.scope,
      enabled: s.enabled,
    })),
    errors: set.errors,
  };
}

/** A configured hook as `hooks/list` shows it. */
export function projectHookEntry(hook: HookEntry): AppServer.HookMetadata {
  return {
    key: hook.key,
    eventName: (hook.event.charAt(0).toLowerCase() + hook.event.slice(1)) as AppServer.HookMetadata['eventName'],
    handlerType: hook.handlerType,
    matcher: hook.matcher,
    command: hook.command,
    statusMessage: hook.statusMessage,
    timeoutSec: hook.timeoutSec,
    enabled: hook.enabled,
    isManaged: false,
    source: hook.source,
    sourcePath: hook.sourcePath,
    pluginId: null,
    displayOrder: hook.displayOrder,
    currentHash: hook.currentHash,
    trustStatus: hook.trustStatus,
  };
}
