/**
 * Human-readable progress for `deputy exec` on stderr: plan, commands with exit codes, patched
 * files, warnings and errors. The final answer goes to stdout separately.
 */
import type { EngineEvent } from '@deputy/protocol';

/** Renders one engine event as zero or more stderr lines. */
export function renderEvent(event: EngineEvent): string[] {
  switch (event.type) {
    case 'plan.updated':
      return ['plan:', ...event.plan.map((s) => `  ${s.status === 'completed' ? '[x]' : s.status === 'in_progress' ? '[>]' : '[ ]'} ${s.step}`)];
    case 'item.started':
      if (event.item.type === 'commandExecution') return [`$ ${event.item.command} (in ${event.item.cwd})`];
      return [];
    case 'item.completed': {
      const item = event.item;
      if (item.type === 'commandExecution') {
        if (item.status === 'declined') return ['  (declined)'];
        return [`  exit ${item.exitCode ?? 'running'} in ${item.durationMs ?? 0} ms`];
      }
      if (item.type === 'fileChange') return item.changes.map((c) => `  ${item.status === 'completed' ? 'patched' : item.status}: ${c.kind.type} ${c.path}`);
      if (item.type === 'contextCompaction') return ['(history compacted)'];
      return [];
    }
    case 'warning':
      return [`warning: ${event.message}`];
    case 'error':
      return [event.willRetry ? `retrying: ${event.error.message}` : `error: ${event.error.message}`];
    case 'turn.completed':
      if (event.turn.status === 'interrupted') return ['turn interrupted'];
      return [];
    default:
      return [];
  }
}
