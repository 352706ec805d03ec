/**
 * The heuristic that a failed sandboxed command was stopped by the sandbox rather than failing on
 * its own: a non-zero exit plus the wording the kernel's refusals produce (read-only filesystem,
 * permission denied) or, with the network namespace unshared, the resolver and routing errors
 * (reference: `is_likely_sandbox_denied` in codex-rs/core/src/exec.rs). The on-failure approval
 * policy uses it to offer a rerun outside the sandbox. False positives cost one extra prompt.
 */

/** Lower-case phrases that suggest a sandbox refusal (filesystem, then network). */
export const SANDBOX_DENIAL_KEYWORDS: readonly string[] = [
  'operation not permitted',
  'permission denied',
  'read-only file system',
  'seccomp',
  'sandbox',
  'landlock',
  'failed to write file',
  'network is unreachable',
  'could not resolve host',
  'temporary failure in name resolution',
  'name or service not known',
];

/** True when `text` contains one of {@link SANDBOX_DENIAL_KEYWORDS} (case-insensitive). */
export function hasSandboxDenialKeyword(text: string): boolean {
  const lower = text.toLowerCase();
  return SANDBOX_DENIAL_KEYWORDS.some((keyword) => lower.includes(keyword));
}

/** The parts of a finished command the heuristic reads. */
export interface DenialCheckInput {
  exitCode: number | null;
  output: string;
}

/**
 * True when a command exited non-zero and its output reads like a sandbox refusal. A process
 * killed by a signal (exitCode null) does not qualify. Call it only for sandboxed runs: without a
 * sandbox the same words describe ordinary failures.
 */
export function looksLikeSandboxDenial(result: DenialCheckInput): boolean {
  if (result.exitCode === null || result.exitCode === 0) return false;
  return hasSandboxDenialKeyword(result.output);
}
