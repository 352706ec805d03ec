/**
 * A getopt-style reader of command-line options against an allow-list, for approval decisions.
 * Long options must be spelled out in full (GNU would accept `--out` for `--output`, so an
 * abbreviation is simply not on any list); short options may be clustered (`-la`), and a letter
 * that takes a value takes the rest of its cluster or the next word. It knows no command; the
 * tables live in `safe-options.ts` and `command-normalize.ts`. It never runs anything.
 */

/** The options a command accepts, as written in its manual. */
export interface OptionSpec {
  /** Short option letters that take no value, e.g. `'alR'`. */
  readonly flags?: string;
  /** Short option letters that take a value (`-n 5`, `-n5`, `-an5`). */
  readonly valued?: string;
  /** Long options (without `--`) that take no value. */
  readonly long?: readonly string[];
  /** Long options that take a value (`--lines=5` or `--lines 5`). */
  readonly longValued?: readonly string[];
  /** Long options whose value is optional (only `--color` or `--color=WHEN`). */
  readonly longOptional?: readonly string[];
  /**
   * What a word like `-5` is: an option (`head -5`, `nice -10`), a positional (a negative number
   * for `seq`), or, when unset, a cluster of letters like any other.
   */
  readonly numeric?: 'option' | 'positional';
  /** Add `--help` and `--version` (every GNU tool has them). Default true. */
  readonly gnu?: boolean;
}

/** An {@link OptionSpec} turned into sets. */
export interface OptionTable {
  readonly flags: ReadonlySet<string>;
  readonly valued: ReadonlySet<string>;
  readonly long: ReadonlySet<string>;
  readonly longValued: ReadonlySet<string>;
  readonly longOptional: ReadonlySet<string>;
  readonly numeric: OptionSpec['numeric'];
}

/** One option as read: `-x` or `--name`, with its value when it has one. */
export interface ParsedOption {
  name: string;
  value: string | null;
}

/** The result of reading a command's arguments. */
export interface ParsedArgs {
  options: ParsedOption[];
  /** Arguments that are not options (all of them after `--`). */
  positionals: string[];
  /** With `stopAtPositional`: the index of the first word after the options (the wrapped command). */
  end: number;
}

/** How to read the arguments. */
export interface ParseMode {
  /** Stop at the first positional (`nice -n 5 CMD …`, getopt's `+` mode); `end` tells where. */
  stopAtPositional?: boolean;
  /**
   * Accept options not in the table as flags (the stricter direction, which only wants to see
   * through a wrapper); by default an unknown option makes the read fail.
   */
  lenient?: boolean;
}

/** Builds the lookup table of a spec. */
export function defineOptions(spec: OptionSpec): OptionTable {
  const gnu = spec.gnu ?? true;
  return {
    flags: new Set(spec.flags ?? ''),
    valued: new Set(spec.valued ?? ''),
    long: new Set([...(spec.long ?? []), ...(gnu ? ['help', 'version'] : [])]),
    longValued: new Set(spec.longValued ?? []),
    longOptional: new Set(spec.longOptional ?? []),
    numeric: spec.numeric,
  };
}

/**
 * Reads `args` against `table`. Returns `null` when an option is not allowed (unknown, an
 * abbreviation, a value given to a flag) or a value is missing.
 */
export function parseOptions(args: readonly string[], table: OptionTable, mode: ParseMode = {}): ParsedArgs | null {
  const options: ParsedOption[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') {
      if (mode.stopAtPositional) return { options, positionals, end: i + 1 };
      positionals.push(...args.slice(i + 1));
      break;
    }
    const isNumeric = /^-\d/.test(a) && table.numeric !== undefined;
    if (a === '-' || !a.startsWith('-') || (isNumeric && table.numeric === 'positional')) {
      if (mode.stopAtPositional) return { options, positionals, end: i };
      positionals.push(a);
      continue;
    }
    if (isNumeric) {
      if (!/^-\d+$/.test(a)) return null;
      options.push({ name: '-#', value: a.slice(1) });
      continue;
    }
    const consumed = a.startsWith('--') ? readLong(args, i, table, mode, options) : readCluster(args, i, table, mode, options);
    if (consumed === null) return null;
    i = consumed;
  }
  return { options, positionals, end: args.length };
}

/** Reads `--name[=value]` at `i`; returns the index of the last word used, or `null`. */
function readLong(args: readonly string[], i: number, table: OptionTable, mode: ParseMode, out: ParsedOption[]): number | null {
  const a = args[i] as string;
  const eq = a.indexOf('=');
  const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
  let value = eq < 0 ? null : a.slice(eq + 1);
  if (table.longValued.has(name)) {
    if (value === null) {
      value = args[i + 1] ?? null;
      if (value === null) return null;
      i++;
    }
  } else if (table.long.has(name)) {
    if (value !== null && !mode.lenient) return null;
  } else if (!table.longOptional.has(name) && !mode.lenient) {
    return null;
  }
  out.push({ name: `--${name}`, value });
  return i;
}

/** Reads a cluster `-abc` at `i`; returns the index of the last word used, or `null`. */
function readCluster(args: readonly string[], i: number, table: OptionTable, mode: ParseMode, out: ParsedOption[]): number | null {
  const a = args[i] as string;
  for (let j = 1; j < a.length; j++) {
    const letter = a[j] as string;
    if (table.valued.has(letter)) {
      const rest = a.slice(j + 1);
      if (rest !== '') {
        out.push({ name: `-${letter}`, value: rest });
        return i;
      }
      const value = args[i + 1];
      if (value === undefined) return mode.lenient ? i : null;
      out.push({ name: `-${letter}`, value });
      return i + 1;
    }
    if (!table.flags.has(letter) && !mode.lenient) return null;
    out.push({ name: `-${letter}`, value: null });
  }
  return i;
}
