/**
 * Slash commands (docs/acp.md, "Slash commands"): advertised with `available_commands_update`
 * after a session is created, loaded or resumed, and handled when a prompt starts with one.
 * Only handled commands are advertised; any other `/word` goes to the model unchanged.
 */
import type * as acp from '@agentclientprotocol/sdk';
import type { ReviewTarget } from '@deputy/engine';

/** The commands Deputy handles. */
export const COMMANDS: acp.AvailableCommand[] = [
  { name: 'compact', description: 'Summarise the conversation to free context' },
  { name: 'review', description: 'Review the uncommitted changes, or follow the given review instructions', input: { hint: 'optional instructions' } },
  { name: 'review-branch', description: 'Review the changes against a base branch', input: { hint: 'branch' } },
  { name: 'review-commit', description: 'Review a commit', input: { hint: 'commit sha' } },
  { name: 'status', description: 'Show the model, mode, working directory and context usage (no model call)' },
];

/** What a prompt asks for. */
export type ParsedCommand = { kind: 'compact' } | { kind: 'review'; target: ReviewTarget } | { kind: 'status' } | { kind: 'usage'; message: string };

/** The command a prompt's text is, or null for an ordinary prompt (including unknown `/words`). */
export function parseCommand(prompt: acp.ContentBlock[]): ParsedCommand | null {
  const first = prompt[0];
  if (prompt.length !== 1 || first?.type !== 'text') return null;
  const match = /^\/([a-z-]+)(?:\s+([\s\S]*))?$/.exec(first.text.trim());
  if (!match) return null;
  const [, name, rest = ''] = match;
  const arg = rest.trim();
  switch (name) {
    case 'compact':
      return { kind: 'compact' };
    case 'status':
      return { kind: 'status' };
    case 'review':
      return { kind: 'review', target: arg ? { type: 'custom', instructions: arg } : { type: 'uncommittedChanges' } };
    case 'review-branch':
      return arg ? { kind: 'review', target: { type: 'baseBranch', branch: arg } } : { kind: 'usage', message: 'Usage: /review-branch <branch>' };
    case 'review-commit':
      return arg ? { kind: 'review', target: { type: 'commit', sha: arg } } : { kind: 'usage', message: 'Usage: /review-commit <sha>' };
    default:
      return null;
  }
}
