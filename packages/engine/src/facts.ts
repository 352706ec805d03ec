/**
 * @deputy/engine/facts: the facts about the engine's own values that the front doors report, in
 * one place and without loading the engine (a front door that starts the engine lazily imports
 * this entry at start-up). Pure functions and constants only: the sandbox's grants and protected
 * names, the shell quoting and script of an argv, the sides of a recorded diff, whole seconds of a time in ms,
 * where a thread's AGENTS.md instructions come from, canonical JSON (layer versions), and the
 * `-c`/`-p` config flags of a command line (parsed before the engine loads). `@deputy/engine` exports the same names.
 */
export { canonicalJson } from './config/canonical-json.js';
export { CONFIG_ARGS_USAGE, configArgOptions, overrideSyntaxError } from './config/config-args.js';
export { findRepositoryRoot, instructionSources, PROJECT_DOC_FILE, workspaceDirs } from './config/workspace.js';
export { wholeSeconds } from './events/timestamps.js';
export { codexPermissionProfile, codexSandboxPolicy, PROTECTED_DIR_NAMES, sandboxGrants, type SandboxGrants, type WritableGrant } from './exec/sandbox-grants.js';
export { displayCommand, scriptOf, shellQuote } from './exec/shell.js';
export { diffHunks, diffSideText, type DiffSide } from './tools/apply-patch/diff-sides.js';
