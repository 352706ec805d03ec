/**
 * The environment a command's child process gets, from Codex's `[shell_environment_policy]`
 * table: which parent variables are inherited (`all` | `core` | `none`), the default exclusion of
 * names that look like secrets (`*KEY*`, `*SECRET*`, `*TOKEN*`), user `exclude` globs, `set`
 * overrides and an `include_only` allow-list, applied in that order (reference:
 * codex-rs/core/src/exec_env.rs). Pure: the parent environment is passed in, never read here.
 */
import { z } from 'zod';

/** Which parent variables start the child environment. */
export const ShellEnvironmentInheritSchema = z.enum(['all', 'core', 'none']);
export type ShellEnvironmentInherit = z.infer<typeof ShellEnvironmentInheritSchema>;

/**
 * The `[shell_environment_policy]` table of config.toml, with Codex's snake_case keys. Every key is
 * optional in TOML; parsing fills the defaults. Unknown keys are dropped, so a Codex config with
 * newer keys still loads.
 */
export const ShellEnvironmentPolicySchema = z.object({
  /** Starting set: every parent variable, the core set, or nothing. Default `all`. */
  inherit: ShellEnvironmentInheritSchema.default('all'),
  /** When false (default), names matching `*KEY*`, `*SECRET*` or `*TOKEN*`, and the agent sockets (`SSH_AUTH_SOCK`, `SSH_AGENT_PID`, `GPG_AGENT_INFO`), are dropped. */
  ignore_default_excludes: z.boolean().default(false),
  /** Case-insensitive globs (`*`, `?`, `[…]`) of names to drop. */
  exclude: z.array(z.string()).default([]),
  /** Variables set (or overridden) after inheritance and exclusion. */
  set: z.record(z.string(), z.string()).default({}),
  /** When non-empty, only names matching one of these case-insensitive globs are kept. */
  include_only: z.array(z.string()).default([]),
  /** Accepted for Codex compatibility and ignored (the shell snapshot is `[features] shell_snapshot`). */
  experimental_use_profile: z.boolean().optional(),
});
export type ShellEnvironmentPolicy = z.infer<typeof ShellEnvironmentPolicySchema>;

/** The policy with every default (inherit all, secrets excluded). */
export const DEFAULT_SHELL_ENVIRONMENT_POLICY: ShellEnvironmentPolicy = ShellEnvironmentPolicySchema.parse({});

/** Names kept by `inherit = "core"`: login identity, search path, temp dirs, locale, terminal. */
export const CORE_ENV_VARS: readonly string[] = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'USER',
  'USERNAME',
  'TMPDIR',
  'TEMP',
  'TMP',
  'LANG',
  'LANGUAGE',
  'TERM',
];

/**
 * Globs of the default secret exclusion: names that look like secrets, and the variables that
 * point a command at the user's agents (an SSH or GPG agent signs and decrypts for whoever
 * connects). A user who wants an agent in commands sets it back with `set` (or turns the default
 * exclusion off with `ignore_default_excludes`).
 */
export const DEFAULT_EXCLUDE_PATTERNS: readonly string[] = ['*KEY*', '*SECRET*', '*TOKEN*', 'SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'GPG_AGENT_INFO'];

/**
 * Variables the exec tools set on top of the policy's result so output stays plain text for the
 * model: no colours, no pager, a dumb terminal, UTF-8 (reference: `UNIFIED_EXEC_ENV`).
 */
export const EXEC_ENV_DEFAULTS: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  TERM: 'dumb',
  LANG: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  COLORTERM: '',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  CODEX_CI: '1',
};

/** Compiles a case-insensitive name glob (`*`, `?`, `[abc]`, `[!abc]`) to an anchored RegExp. */
export function compileEnvPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] as string;
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      source += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'i');
}

/** {@link DEFAULT_EXCLUDE_PATTERNS}, compiled once. */
const DEFAULT_EXCLUDES: readonly RegExp[] = DEFAULT_EXCLUDE_PATTERNS.map(compileEnvPattern);

/** A policy's globs, compiled once per policy object (a command's environment is built per call). */
const compiledGlobs = new WeakMap<ShellEnvironmentPolicy, { exclude: readonly RegExp[]; includeOnly: readonly RegExp[] }>();
function globsOf(policy: ShellEnvironmentPolicy): { exclude: readonly RegExp[]; includeOnly: readonly RegExp[] } {
  let globs = compiledGlobs.get(policy);
  if (globs === undefined) {
    globs = { exclude: policy.exclude.map(compileEnvPattern), includeOnly: policy.include_only.map(compileEnvPattern) };
    compiledGlobs.set(policy, globs);
  }
  return globs;
}

/** True when `name` matches any of `patterns`. */
function matchesAny(name: string, patterns: readonly RegExp[]): boolean {
  return patterns.some((pattern) => pattern.test(name));
}

/** True when `name` belongs to the core set (the listed names plus every `LC_*`). */
function isCoreVar(name: string): boolean {
  return CORE_ENV_VARS.includes(name) || name.startsWith('LC_');
}

/**
 * Builds a child environment from `parentEnv` under `policy`. Steps, in order: inherit (all, core
 * or none) → drop {@link DEFAULT_EXCLUDE_PATTERNS} unless `ignore_default_excludes` → drop
 * `exclude` matches → apply `set` → keep only `include_only` matches when that list is non-empty.
 * Undefined values in `parentEnv` are skipped.
 */
export function buildChildEnv(
  parentEnv: Readonly<Record<string, string | undefined>>,
  policy: ShellEnvironmentPolicy = DEFAULT_SHELL_ENVIRONMENT_POLICY,
): Record<string, string> {
  // The steps above decide each inherited name on its own, so each name's fate is computed once
  // per policy and kept (a command's environment is built per call, from the same few names).
  const env: Record<string, string> = {};
  if (policy.inherit !== 'none') {
    const fates = inheritedFates(policy);
    for (const [name, value] of Object.entries(parentEnv)) {
      if (value === undefined) continue;
      let keep = fates.get(name);
      if (keep === undefined) {
        keep = keepsInherited(name, policy);
        fates.set(name, keep);
      }
      if (keep) env[name] = value;
    }
  }
  const includeOnly = globsOf(policy).includeOnly;
  // An inherited name that misses `include_only` was not kept above, so only `set` is filtered here.
  for (const [name, value] of Object.entries(policy.set)) {
    if (includeOnly.length === 0 || matchesAny(name, includeOnly)) env[name] = value;
  }
  return env;
}

/** Per policy: whether an inherited variable of that name stays (see {@link buildChildEnv}). */
const fatesByPolicy = new WeakMap<ShellEnvironmentPolicy, Map<string, boolean>>();
function inheritedFates(policy: ShellEnvironmentPolicy): Map<string, boolean> {
  let fates = fatesByPolicy.get(policy);
  if (fates === undefined) {
    fates = new Map();
    fatesByPolicy.set(policy, fates);
  }
  return fates;
}

/** Inherit (all or core), not a default exclusion (unless ignored), no `exclude` match, an `include_only` match. */
function keepsInherited(name: string, policy: ShellEnvironmentPolicy): boolean {
  if (policy.inherit === 'core' && !isCoreVar(name)) return false;
  return policyKeepsName(name, policy);
}

/**
 * Whether `policy` keeps a variable called `name` that did not come from the parent (one a login
 * shell's profile exported): false when it matches the default secret exclusion (unless
 * `ignore_default_excludes`), an `exclude` glob, or misses a non-empty `include_only`.
 */
export function policyKeepsName(name: string, policy: ShellEnvironmentPolicy): boolean {
  const globs = globsOf(policy);
  if (!policy.ignore_default_excludes && matchesAny(name, DEFAULT_EXCLUDES)) return false;
  if (matchesAny(name, globs.exclude)) return false;
  return globs.includeOnly.length === 0 || matchesAny(name, globs.includeOnly);
}

/** Returns `env` with {@link EXEC_ENV_DEFAULTS} laid over it (the defaults win). */
export function withExecEnvDefaults(env: Readonly<Record<string, string>>): Record<string, string> {
  return { ...env, ...EXEC_ENV_DEFAULTS };
}
