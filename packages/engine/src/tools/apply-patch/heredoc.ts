/**
 * Recognises a shell command that is really an apply_patch invocation, as models trained on the
 * shell tool still write them: `["apply_patch", "<patch>"]`, or a shell script (`bash -lc`, `sh -c`,
 * `zsh -lc`, PowerShell, cmd) whose only statement is `apply_patch <<'EOF' … EOF`, optionally
 * preceded by `cd <dir> &&`. The matching is deliberately conservative, like the reference's
 * tree-sitter query: anything before, after or around the heredoc makes it an ordinary command.
 * It returns the patch text; parsing and applying it is the caller's business.
 */
import path from 'node:path';

/** The patch text found in a command, and the directory a leading `cd` moved to (if any). */
export interface HeredocPatch {
  patch: string;
  /** The `cd` argument as written (relative to the command's cwd, or absolute). */
  workdir?: string;
}

const APPLY_PATCH_COMMANDS = new Set(['apply_patch', 'applypatch']);

/**
 * First line of an accepted script: optional `cd DIR &&`, the command, then `<<`, `<<-`, and a
 * delimiter that may be quoted. The `cd` argument is one word, a single-quoted string, or a
 * double-quoted string without expansions.
 */
const HEAD =
  /^(?:cd\s+(?:'([^']*)'|"([^"$`\\]*)"|([^\s'"$`\\;&|<>()]+))\s*&&\s*)?(?:apply_patch|applypatch)\s*<<(-?)\s*(?:'([^'\s]+)'|"([^"\s]+)"|([A-Za-z0-9_.-]+))\s*$/;

/**
 * Extracts the patch from an argv array or a shell command string.
 * @param argvOrCommand an exec argv (e.g. `["bash", "-lc", script]`) or a script string
 * @returns the patch (and `workdir` for the `cd dir && apply_patch …` form), or null when the
 *   command is not an apply_patch invocation
 */
export function extractHeredocPatch(argvOrCommand: readonly string[] | string): HeredocPatch | null {
  if (typeof argvOrCommand === 'string') return extractFromScript(argvOrCommand);
  const argv = argvOrCommand;
  const [first, second] = argv;
  if (argv.length === 2 && first !== undefined && second !== undefined && APPLY_PATCH_COMMANDS.has(first)) {
    return { patch: second };
  }
  // Codex-style shell snapshot wrapper: bash -c '. "$0" && exec "$@"' SNAPSHOT SHELL FLAG SCRIPT.
  if (argv.length >= 7 && (argv[2] ?? '').includes('exec "$@"')) return extractHeredocPatch(argv.slice(4));
  const script = shellScript(argv);
  return script === null ? null : extractFromScript(script);
}

/** Returns the script of `SHELL FLAG SCRIPT` forms, or null for anything else. */
function shellScript(argv: readonly string[]): string | null {
  const [shellPath, ...rest] = argv;
  if (shellPath === undefined) return null;
  const shell = path.basename(shellPath.replace(/\\/g, '/')).toLowerCase().replace(/\.exe$/, '');
  let args = rest;
  if ((shell === 'pwsh' || shell === 'powershell') && args[0]?.toLowerCase() === '-noprofile') args = args.slice(1);
  if (args.length !== 2) return null;
  const [flag = '', script = ''] = args;
  const isUnix = ['bash', 'zsh', 'sh'].includes(shell) && (flag === '-c' || flag === '-lc');
  const isPowerShell = (shell === 'pwsh' || shell === 'powershell') && flag.toLowerCase() === '-command';
  const isCmd = shell === 'cmd' && flag.toLowerCase() === '/c';
  return isUnix || isPowerShell || isCmd ? script : null;
}

function extractFromScript(script: string): HeredocPatch | null {
  const lines = script.replace(/^\s+/, '').split('\n').map((line) => line.replace(/\r$/, ''));
  const head = HEAD.exec(lines[0] ?? '');
  if (!head) return null;
  const stripTabs = head[4] === '-';
  const delimiter = head[5] ?? head[6] ?? head[7] ?? '';
  const body = lines.slice(1).map((line) => (stripTabs ? line.replace(/^\t+/, '') : line));
  const end = body.indexOf(delimiter);
  if (end === -1) return null;
  // Nothing may follow the heredoc: `… EOF\necho done` is a different command.
  if (body.slice(end + 1).some((line) => line.trim() !== '')) return null;
  const patch = body.slice(0, end).join('\n').replace(/\n+$/, '');
  const workdir = head[1] ?? head[2] ?? head[3];
  return workdir === undefined ? { patch } : { patch, workdir };
}
