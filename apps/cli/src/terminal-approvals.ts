/**
 * The CLI's ApprovalPort. With a terminal on stdin it asks there (on stderr); without one it
 * denies at once and tells the model and the user how to run without approvals.
 */
import { createInterface } from 'node:readline/promises';
import type { ApprovalRequest, ReviewDecision } from '@deputy/protocol';
import type { ApprovalPort } from '@deputy/engine';

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
    options.log(describe(request));
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
  return {
    requestExec: (request, _origin, signal) => ask(request, signal),
    requestPatch: (request, _origin, signal) => ask(request, signal),
  };
}

/** Maps a typed answer to a decision (anything unknown is a no). */
export function parseAnswer(answer: string): ReviewDecision {
  if (answer === 'y' || answer === 'yes') return 'approved';
  if (answer === 's' || answer === 'session') return 'approved_for_session';
  if (answer === 'r' || answer === 'remember') return 'approved_and_remember';
  if (answer === 'a' || answer === 'abort' || answer === 'q') return 'abort';
  return 'denied';
}

function describe(request: ApprovalRequest): string {
  if (request.kind === 'exec') {
    const why = request.reason ? `\n  reason: ${request.reason}` : '';
    const retry = request.isSandboxRetry ? ' again WITHOUT the sandbox' : '';
    return `\n? Run${retry}: ${request.command.join(' ')}\n  in ${request.cwd}${why}`;
  }
  const files = request.changes.map((c) => `  ${c.kind.type} ${c.path}\n${c.diff}`).join('\n');
  return `\n? Apply patch${request.reason ? ` (${request.reason})` : ''}:\n${files}`;
}
