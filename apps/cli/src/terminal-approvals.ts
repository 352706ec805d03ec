/**
 * The CLI's ApprovalPort. With a terminal on stdin it asks there (on stderr): commands, patches,
 * MCP tool calls, and MCP servers' elicitations (a small form). Without one it denies approvals at
 * once (telling the user how to run without approvals) and declines elicitations. Every text in a
 * question that the model, the workspace or an MCP server chose goes through the neutraliser of
 * @deputy/protocol (displayText), so a carriage return, an ANSI sequence or a bidi override cannot
 * redraw the question: what is shown is what runs.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import { displayJson, displayLines, displayText } from '@deputy/protocol';
import type { ApprovalRequest, McpElicitationRequest, McpElicitationResponse, McpToolCallApprovalRequest, ReviewDecision } from '@deputy/protocol';
import { displayCommand, type ApprovalPort } from '@deputy/engine';
import { changeLabel, mcpCallLabel } from './render.js';

/** The message shown when a non-interactive run needs an approval. */
export const NON_INTERACTIVE_HINT =
  'approval needed but stdin is not a terminal: denied. Re-run with --ask-for-approval never (commands stay sandboxed) or --full-auto (on-request + workspace-write).';

/** An ApprovalPort for `deputy exec`. */
export function terminalApprovals(options: { interactive: boolean; log: (line: string) => void }): ApprovalPort {
  const ask = async (request: ApprovalRequest, signal: AbortSignal): Promise<ReviewDecision> => {
    if (!options.interactive) {
      options.log(`deputy: ${NON_INTERACTIVE_HINT}`);
      return 'denied';
    }
    options.log(describeApproval(request));
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = (await rl.question('Allow? [y]es / [s]ession / [r]emember / [n]o / [a]bort: ', { signal })).trim().toLowerCase();
      return parseAnswer(answer);
    } catch {
      return 'abort';
    } finally {
      rl.close();
    }
  };
  const askMcp = async (request: McpToolCallApprovalRequest, signal: AbortSignal): Promise<ReviewDecision> => {
    if (!options.interactive) {
      options.log(`deputy: ${NON_INTERACTIVE_HINT}`);
      return 'denied';
    }
    options.log(describeMcpCall(request));
    const choices = request.canRemember ? '[y]es / [s]ession / [n]o / [a]bort' : '[y]es / [n]o / [a]bort';
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = parseMcpAnswer((await rl.question(`Allow? ${choices}: `, { signal })).trim().toLowerCase());
      // `prompt` mode offers no "remember": a session answer counts once.
      return answer === 'approved_for_session' && !request.canRemember ? 'approved' : answer;
    } catch {
      return 'abort';
    } finally {
      rl.close();
    }
  };
  const elicit = async (request: McpElicitationRequest, signal: AbortSignal): Promise<McpElicitationResponse> => {
    if (!options.interactive) {
      options.log(`deputy: the ${displayText(request.server)} MCP server asks for input but stdin is not a terminal: declined.`);
      return { action: 'decline', content: null };
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await elicitOnTerminal(request, rl, options.log, signal);
    } catch {
      return { action: 'cancel', content: null };
    } finally {
      rl.close();
    }
  };
  return {
    requestExec: (request, _origin, signal) => ask(request, signal),
    requestPatch: (request, _origin, signal) => ask(request, signal),
    requestMcpToolCall: (request, _origin, signal) => askMcp(request, signal),
    requestMcpElicitation: (request, _origin, signal) => elicit(request, signal),
  };
}

/** Maps a typed answer to an MCP tool call decision (`y`, `s`, `n`, `a`; anything unknown is a no). */
export function parseMcpAnswer(answer: string): ReviewDecision {
  const decision = parseAnswer(answer);
  return decision === 'approved_and_remember' ? 'denied' : decision;
}

export function describeMcpCall(request: McpToolCallApprovalRequest): string {
  const about = request.toolDescription ? `\n  ${displayText(request.toolDescription)}` : '';
  return `\n? ${displayText(request.message)}\n  mcp: ${mcpCallLabel(request, Infinity)}${about}`;
}

/** A form field of an elicitation schema (the MCP subset: flat primitives). */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  default?: unknown;
}

/**
 * Asks an elicitation on the terminal: the message, then (form) one question per field, typed by
 * the schema (empty = the default, or left out); `!decline` / `!cancel` at any prompt ends it.
 * URL mode shows the URL and asks whether the user went there ([y] accept, [n] decline).
 */
export async function elicitOnTerminal(request: McpElicitationRequest, rl: Pick<Interface, 'question'>, log: (line: string) => void, signal: AbortSignal): Promise<McpElicitationResponse> {
  log(`\n? The ${displayText(request.server)} MCP server asks: ${indentBlock(displayLines(request.message))}`);
  if (request.mode === 'url') {
    log(`  open: ${displayText(request.url ?? '')}`);
    const answer = (await rl.question('Done? [y]es / [n]o / [c]ancel: ', { signal })).trim().toLowerCase();
    if (answer === 'y' || answer === 'yes') return { action: 'accept', content: null };
    return answer === 'c' || answer === 'cancel' ? { action: 'cancel', content: null } : { action: 'decline', content: null };
  }
  const schema = (request.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  log('  (type !decline or !cancel to refuse)');
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const choices = field.enum ?? field.oneOf?.map((o) => o.const);
    for (;;) {
      const hint = [displayText(String(field.type ?? 'string')), choices ? `one of ${choices.map((c) => displayJson(c)).join(', ')}` : null, field.default !== undefined ? `default ${displayJson(field.default)}` : null, required.has(name) ? 'required' : null]
        .filter(Boolean)
        .join('; ');
      const label = displayText(typeof field.title === 'string' ? field.title : name);
      const about = typeof field.description === 'string' && field.description !== '' ? ` (${displayText(field.description)})` : '';
      const raw = (await rl.question(`  ${label}${about} [${hint}]: `, { signal })).trim();
      if (raw === '!decline') return { action: 'decline', content: null };
      if (raw === '!cancel') return { action: 'cancel', content: null };
      if (raw === '') {
        if (field.default !== undefined) content[name] = field.default;
        else if (required.has(name)) {
          log(`  ${label} is required`);
          continue;
        }
        break;
      }
      const value = fieldValue(field, raw);
      if (value === undefined || (choices && !choices.includes(value))) {
        log(`  not a valid ${displayText(String(field.type ?? 'value'))}: ${displayText(raw)}`);
        continue;
      }
      content[name] = value;
      break;
    }
  }
  return { action: 'accept', content };
}

function fieldValue(field: Field, raw: string): unknown {
  switch (field.type) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return undefined;
      return n;
    }
    case 'boolean':
      if (/^(y|yes|true)$/i.test(raw)) return true;
      if (/^(n|no|false)$/i.test(raw)) return false;
      return undefined;
    default:
      return raw;
  }
}

/** Maps a typed answer to a decision (anything unknown is a no). */
export function parseAnswer(answer: string): ReviewDecision {
  if (answer === 'y' || answer === 'yes') return 'approved';
  if (answer === 's' || answer === 'session') return 'approved_for_session';
  if (answer === 'r' || answer === 'remember') return 'approved_and_remember';
  if (answer === 'a' || answer === 'abort' || answer === 'q') return 'abort';
  return 'denied';
}

/**
 * The question for a command or a patch: the argv as one shell-quoted line (so word boundaries
 * show) with every hidden character escaped, the directory and the reason; or each file (with
 * the target of a move) and its diff, the diff as a block whose line breaks are kept.
 */
export function describeApproval(request: ApprovalRequest): string {
  if (request.kind === 'exec') {
    const why = request.reason ? `\n  reason: ${displayText(request.reason)}` : '';
    const retry = request.isSandboxRetry ? ' again WITHOUT the sandbox' : '';
    return `\n? Run${retry}: ${displayText(displayCommand(request.command))}\n  in ${displayText(request.cwd)}${why}`;
  }
  const files = request.changes.map((c) => `  ${changeLabel(c)}\n${displayLines(c.diff)}`).join('\n');
  return `\n? Apply patch${request.reason ? ` (${displayText(request.reason)})` : ''}:\n${files}`;
}

/** A block of several lines, its later lines indented under the first. */
function indentBlock(text: string): string {
  return text.replace(/\n/g, '\n  ');
}
