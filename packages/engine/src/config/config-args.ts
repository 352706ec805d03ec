/**
 * The config flags every front door takes, `-c/--config key=value` (repeatable) and
 * `-p/--profile NAME`: their `node:util` `parseArgs` options, their `--help` lines, and the
 * `key=value` check. Pure and light (no TOML parser), so a front door that loads the engine
 * lazily can parse its command line first; `parseCliOverride` reads the values later.
 */

/** The `parseArgs` options of `-c` and `-p` (a fresh object each call: the `[]` default is returned as is). */
export function configArgOptions() {
  return {
    config: { type: 'string', short: 'c', multiple: true, default: [] as string[] },
    profile: { type: 'string', short: 'p' },
  } as const;
}

/** The `--help` lines of `-c` and `-p`. */
export const CONFIG_ARGS_USAGE = `  -c, --config <k=v>    override a config.toml key (dotted path, TOML value); repeatable
  -p, --profile <name>  use a [profiles.<name>] table of config.toml
`;

/** Why `raw` is not a `-c key=value` override, or null when it is one (a non-empty key, then `=`). */
export function overrideSyntaxError(raw: string): string | null {
  return raw.indexOf('=') > 0 ? null : `-c ${raw}: expected key=value, e.g. -c model_reasoning_effort=high`;
}
