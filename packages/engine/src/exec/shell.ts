/**
 * Turning a model's command string into an argv for the user's shell (`/bin/bash -lc '…'`), and
 * an argv back into one shell-quoted line for display in approvals and events. Pure functions.
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
