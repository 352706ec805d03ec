/**
 * The context a thread gives the model besides the conversation: the permissions message
 * (sandbox and approval policy), AGENTS.md project instructions from the repository root down to
 * the cwd (size-capped), and the environment context (cwd, shell, date, timezone).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ApprovalPolicy, SandboxPolicy } from '@deputy/protocol';
import type { ResponseItem } from '../model/types.js';

/** Default cap on the AGENTS.md text included, in bytes. */
export const DEFAULT_PROJECT_DOC_MAX_BYTES = 32 * 1024;

const APPROVAL_TEXT: Record<ApprovalPolicy, string> = {
  untrusted:
    'Approval policy: untrusted. Only known read-only commands run without asking; every other command waits for the user to approve it. Edits to files need approval too.',
  'on-failure':
    'Approval policy: on-failure. Commands run inside the sandbox without asking. If a command fails because the sandbox blocked it, the user is asked whether to run it again without the sandbox.',
  'on-request':
    'Approval policy: on-request. Commands run inside the sandbox without asking. When a command needs more than the sandbox allows (writing outside the writable roots, network access), call exec_command with sandbox_permissions "require_escalated" and a short justification; the user then decides.',
  never:
    'Approval policy: never. Nobody can be asked for approval. Work within the sandbox; when something is blocked, find another way or report it. Do not request escalation.',
};

/** Builds the developer message that tells the model its sandbox and approval policy. */
export function permissionsMessage(sandbox: SandboxPolicy, approvalPolicy: ApprovalPolicy, cwd: string): ResponseItem {
  const lines = ['<permissions instructions>'];
  if (sandbox.type === 'danger-full-access') {
    lines.push('Filesystem sandboxing: danger-full-access. Commands run without a sandbox: every file is writable and network access is enabled.');
  } else if (sandbox.type === 'read-only') {
    lines.push('Filesystem sandboxing: read-only. Commands can read files but cannot write anywhere.');
    lines.push(`Network access is ${sandbox.networkAccess ? 'enabled' : 'restricted'}.`);
  } else {
    const roots = [cwd, ...sandbox.writableRoots];
    if (!sandbox.excludeSlashTmp) roots.push('/tmp');
    if (!sandbox.excludeTmpdirEnvVar && process.env.TMPDIR) roots.push(process.env.TMPDIR);
    lines.push('Filesystem sandboxing: workspace-write. Commands can read every file and write only inside the writable roots; .git and .deputy directories stay read-only.');
    lines.push(`Writable roots: ${[...new Set(roots)].join(', ')}.`);
    lines.push(`Network access is ${sandbox.networkAccess ? 'enabled' : 'restricted'}.`);
  }
  lines.push(APPROVAL_TEXT[approvalPolicy]);
  lines.push('</permissions instructions>');
  return { type: 'message', role: 'developer', content: [{ type: 'input_text', text: lines.join('\n') }] };
}

/** The local time zone, read once per `TZ` value (building an `Intl.DateTimeFormat` costs about a millisecond). */
let zone: { tz: string | undefined; name: string } | null = null;
function localTimeZone(): string {
  const tz = process.env.TZ;
  if (zone === null || zone.tz !== tz) zone = { tz, name: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
  return zone.name;
}

/** Builds the `<environment_context>` user message. */
export function environmentContextMessage(cwd: string, now: Date = new Date()): ResponseItem {
  const shell = basename(process.env.SHELL || '/bin/bash');
  const timezone = localTimeZone();
  const date = now.toISOString().slice(0, 10);
  const text = [
    '<environment_context>',
    `  <cwd>${cwd}</cwd>`,
    `  <shell>${shell}</shell>`,
    `  <current_date>${date}</current_date>`,
    `  <timezone>${timezone}</timezone>`,
    '</environment_context>',
  ].join('\n');
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

/** Finds the repository root above `cwd` (the nearest directory holding `.git`), or null. */
export function findRepositoryRoot(cwd: string): string | null {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * Collects AGENTS.md files from the repository root (or cwd when not in a repository) down to
 * cwd, joined root-first, capped at `maxBytes` in total. Returns null when there are none.
 */
export function loadProjectDocs(cwd: string, maxBytes = DEFAULT_PROJECT_DOC_MAX_BYTES): string | null {
  if (maxBytes <= 0) return null;
  const target = resolve(cwd);
  const root = findRepositoryRoot(target) ?? target;
  const dirs: string[] = [];
  for (let dir = target; ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dir === root || dirname(dir) === dir) break;
  }
  const parts: string[] = [];
  let remaining = maxBytes;
  for (const dir of dirs) {
    const file = join(dir, 'AGENTS.md');
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    const bytes = readFileSync(file);
    const slice = bytes.subarray(0, remaining).toString('utf8').trim();
    if (slice) parts.push(slice);
    remaining -= Math.min(bytes.length, remaining);
    if (remaining <= 0) break;
  }
  return parts.length > 0 ? parts.join('\n\n') : null;
}

/** Wraps project docs as the user message the model reads. */
export function projectDocsMessage(cwd: string, docs: string): ResponseItem {
  const text = `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${docs}\n</INSTRUCTIONS>`;
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

/** The context items that open a thread (or follow a change of cwd or policy). */
export function initialContextItems(opts: {
  cwd: string;
  sandbox: SandboxPolicy;
  approvalPolicy: ApprovalPolicy;
  developerInstructions: string | null;
  projectDocMaxBytes: number;
  /** The `<skills_instructions>` block, sent in the permissions message as the reference does. */
  skillsInstructions?: string | null;
  now?: Date;
}): ResponseItem[] {
  const permissions = permissionsMessage(opts.sandbox, opts.approvalPolicy, opts.cwd);
  if (opts.skillsInstructions && permissions.type === 'message') permissions.content.push({ type: 'input_text', text: opts.skillsInstructions });
  const items: ResponseItem[] = [permissions];
  if (opts.developerInstructions) {
    items.push({ type: 'message', role: 'developer', content: [{ type: 'input_text', text: opts.developerInstructions }] });
  }
  const docs = loadProjectDocs(opts.cwd, opts.projectDocMaxBytes);
  if (docs) items.push(projectDocsMessage(opts.cwd, docs));
  items.push(environmentContextMessage(opts.cwd, opts.now));
  return items;
}
