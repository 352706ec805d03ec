/**
 * The offline demo model: a stateless script for Deputy's built-in `demo` provider. From the
 * request's own conversation it decides the next step: a user message starts a turn with an
 * `update_plan` call; the plan's output leads to `exec_command` `ls -la`; the command's output
 * leads to a short final answer computed from that real output, which also says that this is
 * the demo model and how to configure a real one. Runtime code: no test framework imports.
 */
import { conversationTail, toolNames, type RecordedRequest } from './request-matchers.js';
import { functionCall, text, type Step } from './scripted-steps.js';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedModelServerOptions } from './scripted-model-server.js';

/** The plan the demo model sets at the start of every turn. */
const DEMO_PLAN = [
  { step: 'List the files in the workspace', status: 'in_progress' },
  { step: 'Summarise what the listing shows', status: 'pending' },
  { step: 'Explain how to switch to a real model', status: 'pending' },
];

const HOW_TO_CONFIGURE =
  'This answer comes from Deputy\'s offline demo model, a scripted stand-in that runs without a network or an API key. ' +
  'To use a real model, set OPENAI_API_KEY, or choose a provider in $DEPUTY_HOME/config.toml ' +
  '(`model_provider` and `model_providers.<id>` with `base_url`, `env_key` and `wire_api`), then run the same command again.';

/** One entry of an `ls -la` listing. */
interface ListingEntry {
  name: string;
  kind: 'directory' | 'file' | 'link' | 'other';
}

/** The command output without the exec tool's header (`Chunk ID: …` … `Output:`). */
function stripExecHeader(output: string): string {
  const marker = output.indexOf('\nOutput:\n');
  if (marker >= 0) return output.slice(marker + '\nOutput:\n'.length);
  return output.startsWith('Output:\n') ? output.slice('Output:\n'.length) : output;
}

/** Parses `ls -la` lines (`drwxr-xr-x 2 user group 4096 Nov 29 12:00 name`), skipping `.` and `..`. */
export function parseLsListing(output: string): ListingEntry[] {
  const entries: ListingEntry[] = [];
  for (const line of stripExecHeader(output).split('\n')) {
    const match = /^([dlcbps-])[rwxsStT-]{9}[@+.]?\s+\d+\s+\S+\s+\S+\s+[\d,]+\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(line.trimEnd());
    if (match === null) continue;
    const type = match[1] ?? '-';
    const name = type === 'l' ? (match[2] ?? '').split(' -> ')[0] ?? '' : (match[2] ?? '');
    if (name === '.' || name === '..') continue;
    entries.push({ name, kind: type === 'd' ? 'directory' : type === '-' ? 'file' : type === 'l' ? 'link' : 'other' });
  }
  return entries;
}

/** `1 file`, `2 files`; `many` is the plural form when it is not `word + 's'`. */
function count(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The final answer for the command's output: counts and names computed from the listing. */
export function summariseListing(output: string): string {
  const entries = parseLsListing(output);
  if (entries.length === 0) {
    const firstLine = stripExecHeader(output).trim().split('\n')[0] ?? '';
    const detail = firstLine === '' ? 'it printed nothing' : `it said: "${firstLine.slice(0, 200)}"`;
    return `I ran \`ls -la\` but got no file listing back; ${detail}.\n\n${HOW_TO_CONFIGURE}`;
  }
  const dirs = entries.filter((e) => e.kind === 'directory').length;
  const files = entries.filter((e) => e.kind === 'file').length;
  const others = entries.length - dirs - files;
  const parts = [count(dirs, 'directory', 'directories'), count(files, 'file')];
  if (others > 0) parts.push(`${others} other`);
  const shown = entries.slice(0, 5).map((e) => `\`${e.name}${e.kind === 'directory' ? '/' : ''}\``);
  const more = entries.length > shown.length ? `, and ${entries.length - shown.length} more` : '';
  return (
    `The workspace holds ${count(entries.length, 'entry', 'entries')} (${parts.join(', ')}), ` +
    `including ${shown.join(', ')}${more}.\n\n${HOW_TO_CONFIGURE}`
  );
}

/**
 * The demo model's script. Stateless: every decision comes from the request's conversation, so
 * the same function serves any number of threads and turns, on either wire.
 */
export function demoScript(): (request: RecordedRequest) => Step {
  return (request) => {
    const tools = toolNames(request);
    const tail = conversationTail(request);
    const listCommand = (): Step =>
      tools.includes('exec_command')
        ? { output: [functionCall('exec_command', { cmd: 'ls -la' })] }
        : { output: [text(`I have no shell tool in this session, so I cannot look at the workspace.\n\n${HOW_TO_CONFIGURE}`)] };

    if (tail.kind === 'user') {
      if (tools.includes('update_plan')) {
        return { output: [functionCall('update_plan', { explanation: 'Look at the workspace and report back.', plan: DEMO_PLAN })] };
      }
      return listCommand();
    }
    if (tail.kind === 'tool-output' && tail.call?.name === 'update_plan') return listCommand();
    if (tail.kind === 'tool-output' && tail.call?.name === 'exec_command') return { output: [text(summariseListing(tail.output.output))] };
    return { output: [text(`I am not sure what to do next.\n\n${HOW_TO_CONFIGURE}`)] };
  };
}

/** Starts a scripted model server that answers every request with `demoScript()`. */
export function startDemoModelServer(options: Omit<ScriptedModelServerOptions, 'handler' | 'steps'> = {}): Promise<ScriptedModelServer> {
  return startScriptedModelServer({ models: ['demo'], recordRequests: false, ...options, handler: demoScript() });
}
