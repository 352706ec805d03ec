/**
 * Turning a model's command string into an argv for the user's shell (`/bin/bash -lc '…'`), and
 * an argv back into text for display: one shell-quoted line, or the script a shell wrapper runs.
 * The one definition of shell quoting and of "the script of an argv" that both front doors
 * report. Pure functions.
 */

/** Options of {@link shellArgv}. */
export interface ShellArgvOptions {
  /** Shell executable; default `$SHELL` of `env`, else `/bin/bash`. */
  shell?: string;
  /** Run as a login shell (`-l`), as the reference does by default. Default true. */
  login?: boolean;
  /** Where `$SHELL` is read from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The shell used when none is given: `$SHELL` if set and absolute, else `/bin/bash`. */
export function defaultShell(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const shell = env.SHELL;
  return shell !== undefined && shell.startsWith('/') ? shell : '/bin/bash';
}

/** `cmd` run by a shell: `[shell, '-lc', cmd]`, or `[shell, '-c', cmd]` when `login` is false. */
export function shellArgv(cmd: string, options: ShellArgvOptions = {}): string[] {
  const shell = options.shell !== undefined && options.shell !== '' ? options.shell : defaultShell(options.env);
  return [shell, options.login === false ? '-c' : '-lc', cmd];
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word for a POSIX shell, leaving plain words bare. */
export function shellQuote(word: string): string {
  if (word === '') return "''";
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One shell-quoted line for an argv, e.g. `/bin/bash -lc 'echo hi'`. */
export function displayCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/** The flags after which a shell's next argument is the script it runs. */
const SCRIPT_FLAGS: ReadonlySet<string> = new Set(['-c', '-lc']);

/**
 * The script an argv runs, for display: `script` for exactly `[shell, '-c'|'-lc', script]` (what
 * {@link shellArgv} builds), otherwise the argv as one shell-quoted line ({@link displayCommand}).
 */
export function scriptOf(argv: readonly string[]): string {
  const [, flag, script] = argv;
  if (argv.length === 3 && flag !== undefined && SCRIPT_FLAGS.has(flag) && script !== undefined) return script;
  return displayCommand(argv);
}
