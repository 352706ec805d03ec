/**
 * The approval matrix as data: what every approval policy does with each kind of tool call
 * (a safe command, an unsafe one, one the sandbox blocks, an escalation request, a patch inside
 * and one outside the writable roots), the calls themselves, and one checker that runs a case
 * through a real turn and verifies what the approval port was asked, what ran (marker files),
 * the item's status and what the model was told, for every answer to an approval.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalPolicy, EngineEvent, ReviewDecision } from '@deputy/protocol';
import type { Step } from '@deputy/test-support';
import { APPROVAL_TIMED_OUT_TEXT } from '../../src/tools/shell/approval-flow.js';
import { addFilePatch, completedItems, execCall, patchCall, requireBwrap, SafetyHarness, unfinishedItems, WORKSPACE_WRITE, type CaseResult } from './harness.js';

/** The kinds of call every policy is checked against. */
export type ScenarioName = 'safe command' | 'unsafe command' | 'sandbox denial' | 'escalation request' | 'patch inside' | 'patch outside';

/**
 * What a policy does with a call: `runs` (no question, succeeds), `fails in sandbox` (no
 * question, the sandbox blocks it and the model reads the error), `refused` (never runs, the
 * model reads why), `asks` (asks before running), `asks to retry` (runs in the sandbox, is
 * blocked, then asks to run it again without the sandbox), `asks twice` (asks before running;
 * once approved it runs in the sandbox, is blocked, and the rerun without the sandbox is a second
 * question, which the harness declines).
 */
export type Expectation = 'runs' | 'fails in sandbox' | 'refused' | 'asks' | 'asks to retry' | 'asks twice';

/** The decision table under test (workspace-write, /tmp not writable). */
export const MATRIX: Record<ApprovalPolicy, Record<ScenarioName, Expectation>> = {
  untrusted: {
    'safe command': 'runs',
    'unsafe command': 'asks',
    'sandbox denial': 'asks twice',
    'escalation request': 'refused',
    'patch inside': 'asks',
    'patch outside': 'asks',
  },
  'on-failure': {
    'safe command': 'runs',
    'unsafe command': 'runs',
    'sandbox denial': 'asks to retry',
    'escalation request': 'refused',
    'patch inside': 'runs',
    'patch outside': 'asks',
  },
  'on-request': {
    'safe command': 'runs',
    'unsafe command': 'runs',
    'sandbox denial': 'fails in sandbox',
    'escalation request': 'asks',
    'patch inside': 'runs',
    'patch outside': 'asks',
  },
  never: {
    'safe command': 'runs',
    'unsafe command': 'runs',
    'sandbox denial': 'fails in sandbox',
    'escalation request': 'refused',
    'patch inside': 'runs',
    'patch outside': 'refused',
  },
};

/** How each scenario reads in a test name. */
const LABELS: Record<ScenarioName, string> = {
  'safe command': 'a safe command',
  'unsafe command': 'an unsafe command',
  'sandbox denial': 'a write outside the workspace',
  'escalation request': 'an escalation request',
  'patch inside': 'a patch inside the workspace',
  'patch outside': 'a patch outside the writable roots',
};

/** The test name of a cell; `%s` stands for the answer in asking cells. */
export function cellTitle(policy: ApprovalPolicy, scenario: ScenarioName): string {
  const label = LABELS[scenario];
  switch (MATRIX[policy][scenario]) {
    case 'runs':
      return `runs ${label} without asking`;
    case 'fails in sandbox':
      return `runs ${label} in the sandbox without asking and reports the denial to the model`;
    case 'refused':
      return `refuses ${label} without asking and tells the model why`;
    case 'asks':
      return `asks about ${label} and honours the answer %s`;
    case 'asks to retry':
      return `asks to rerun ${label} without the sandbox after the denial and honours the answer %s`;
    case 'asks twice':
      return `asks about ${label}, honours the answer %s, and asks again before a rerun without the sandbox`;
  }
}

/** True when the cell asks for an approval (and so runs once per answer). */
export function isAskingCell(policy: ApprovalPolicy, scenario: ScenarioName): boolean {
  const expectation = MATRIX[policy][scenario];
  return expectation === 'asks' || expectation === 'asks to retry' || expectation === 'asks twice';
}

export const POLICIES = Object.keys(MATRIX) as ApprovalPolicy[];
export const ANSWERS: ReviewDecision[] = ['approved', 'approved_for_session', 'approved_and_remember', 'denied', 'abort', 'timed_out'];
const APPROVING: ReviewDecision[] = ['approved', 'approved_for_session', 'approved_and_remember'];

/** One concrete call of a scenario and how to see whether it took effect. */
interface BuiltCase {
  kind: 'exec' | 'patch';
  step: Step;
  /** True when the call did what it asked (a marker exists, or the output carries the token). */
  tookEffect(result: CaseResult): boolean;
  /** Checks the approval request's contents. */
  checkRequest(request: Record<string, unknown>, policy: ApprovalPolicy): void;
}

const JUSTIFICATION = 'I need to write the build stamp outside the workspace';

/** Builds the call of `scenario` for a workspace `ws`. */
export function buildCase(scenario: ScenarioName, h: SafetyHarness, ws: string): BuiltCase {
  const id = h.nextId();
  const execRequest = (cmd: string, marker: string, reason: (policy: ApprovalPolicy) => string | RegExp) => ({
    kind: 'exec' as const,
    tookEffect: () => existsSync(marker),
    checkRequest(request: Record<string, unknown>, policy: ApprovalPolicy) {
      expect(request.kind).toBe('exec');
      expect((request.command as string[]).slice(1)).toEqual(['-c', cmd]);
      expect(request.cwd).toBe(ws);
      expect(request.reason).toMatch(reason(policy));
      expect(request.isSandboxRetry).toBe(policy === 'on-failure');
      expect(request.proposedPrefixRule).toEqual(cmd.split(' '));
    },
  });
  const patchRequest = (path: string, line: string, reason: RegExp | null) => ({
    kind: 'patch' as const,
    step: patchCall(addFilePatch(path, line)),
    tookEffect: () => existsSync(path.startsWith('/') ? path : join(ws, path)),
    checkRequest(request: Record<string, unknown>) {
      expect(request.kind).toBe('patch');
      const changes = request.changes as { path: string; kind: { type: string }; diff: string }[];
      expect(changes).toHaveLength(1);
      expect(changes[0]?.path).toBe(path.startsWith('/') ? path : join(ws, path));
      expect(changes[0]?.kind.type).toBe('add');
      expect(changes[0]?.diff).toContain(`+${line}`);
      if (reason === null) expect(request.reason).toBeNull();
      else expect(request.reason).toMatch(reason);
    },
  });
  const notReadOnly = 'the command is not known to be read-only';
  switch (scenario) {
    case 'safe command':
      return {
        kind: 'exec',
        step: execCall(`echo safe-${id}`),
        tookEffect: (result) => (result.toldModel[0] ?? '').includes(`Output:\nsafe-${id}`),
        checkRequest: () => expect.unreachable('a safe command is never asked about'),
      };
    case 'unsafe command': {
      const cmd = `touch unsafe-${id}`;
      return { ...execRequest(cmd, join(ws, `unsafe-${id}`), () => notReadOnly), step: execCall(cmd) };
    }
    case 'sandbox denial': {
      const marker = join(h.outside, `denial-${id}`);
      const cmd = `touch ${marker}`;
      const reason = (policy: ApprovalPolicy) => (policy === 'on-failure' ? 'command failed; retry without sandbox?' : notReadOnly);
      return { ...execRequest(cmd, marker, reason), step: execCall(cmd) };
    }
    case 'escalation request': {
      const marker = join(h.outside, `escalated-${id}`);
      const cmd = `touch ${marker}`;
      const step = execCall(cmd, { sandbox_permissions: 'require_escalated', justification: JUSTIFICATION });
      return { ...execRequest(cmd, marker, () => JUSTIFICATION), step };
    }
    case 'patch inside':
      return patchRequest(`inside-${id}.txt`, `payload-${id}`, null);
    case 'patch outside': {
      const target = join(h.outside, `patch-${id}.txt`);
      return patchRequest(target, `payload-${id}`, new RegExp(`writes outside the writable roots: ${target}`));
    }
  }
}

/** The status of the call's item (commandExecution or fileChange), or null when none was created. */
function itemStatus(events: EngineEvent[], kind: 'exec' | 'patch'): string | null {
  const items = kind === 'exec' ? completedItems(events, 'commandExecution') : completedItems(events, 'fileChange');
  expect(items.length).toBeLessThanOrEqual(1);
  return items[0]?.status ?? null;
}

/** Runs one cell of the matrix (with `answer` when it asks) and checks everything it should do. */
export async function checkCell(h: SafetyHarness, policy: ApprovalPolicy, scenario: ScenarioName, answer: ReviewDecision | null): Promise<void> {
  const ws = await h.newWorkspace();
  const thread = await h.startThread({ approvalPolicy: policy, sandbox: WORKSPACE_WRITE, cwd: ws });
  const built = buildCase(scenario, h, ws);
  const expectation = MATRIX[policy][scenario];
  const result = await h.runTurn(thread, [built.step], answer ? [answer] : [], 'denied');
  const told = result.toldModel[0] ?? '';
  expect(unfinishedItems(result.events)).toEqual([]);
  const success = built.kind === 'exec' ? /Process exited with code 0\n/ : /^Exit code: 0\n/;

  if (!isAskingCell(policy, scenario)) {
    expect(result.asked).toEqual([]);
    expect(result.turn.status).toBe('completed');
    if (expectation === 'runs') {
      expect(built.tookEffect(result)).toBe(true);
      expect(itemStatus(result.events, built.kind)).toBe('completed');
      expect(told).toMatch(success);
    } else if (expectation === 'fails in sandbox') {
      expect(built.tookEffect(result)).toBe(false);
      expect(itemStatus(result.events, built.kind)).toBe('failed');
      expect(told).toMatch(/Process exited with code [1-9][\s\S]*Read-only file system/);
    } else {
      expect(built.tookEffect(result)).toBe(false);
      if (built.kind === 'exec') {
        expect(itemStatus(result.events, 'exec')).toBeNull();
        expect(told).toMatch(/approval policy is [a-z-]+; running outside the sandbox cannot be requested/);
      } else {
        expect(itemStatus(result.events, 'patch')).toBe('declined');
        expect(told).toMatch(/patch rejected: writing outside of the writable roots \(workspace-write\) needs approval, and the approval policy is never/);
      }
    }
    return;
  }

  if (answer === null) throw new Error('an asking cell needs an answer');
  // An approved run that the sandbox blocks is asked about again; the harness declines the rerun.
  const isRetryDeclined = expectation === 'asks twice' && APPROVING.includes(answer);
  expect(result.asked).toHaveLength(isRetryDeclined ? 2 : 1);
  expect(result.asked[0]?.kind).toBe(built.kind);
  built.checkRequest(result.asked[0]?.request ?? {}, policy);
  const resolved = result.events.filter((e) => e.type === 'approval.resolved');
  if (isRetryDeclined) {
    expect(result.asked[1]?.request).toMatchObject({ kind: 'exec', isSandboxRetry: true, reason: 'command failed; retry without sandbox?' });
    expect(resolved.map((e) => e.type === 'approval.resolved' && e.decision)).toEqual([answer, 'denied']);
    expect(built.tookEffect(result)).toBe(false);
    expect(itemStatus(result.events, built.kind)).toBe('declined');
    expect(told).toBe('rejected by user');
    return;
  }
  expect(resolved.map((e) => e.type === 'approval.resolved' && e.decision)).toEqual([answer]);
  expect(result.events.filter((e) => e.type === 'approval.requested')).toHaveLength(1);

  if (APPROVING.includes(answer)) {
    expect(result.turn.status).toBe('completed');
    expect(built.tookEffect(result)).toBe(true);
    expect(itemStatus(result.events, built.kind)).toBe('completed');
    expect(told).toMatch(success);
    return;
  }
  expect(built.tookEffect(result)).toBe(false);
  expect(itemStatus(result.events, built.kind)).toBe('declined');
  if (answer === 'abort') {
    expect(result.turn.status).toBe('interrupted');
    // The turn ended at the approval: no follow-up model request.
    expect(result.requests).toHaveLength(1);
    expect(told).toMatch(/^aborted by user after/);
    return;
  }
  expect(result.turn.status).toBe('completed');
  expect(result.requests).toHaveLength(2);
  if (answer === 'timed_out') expect(told).toBe(APPROVAL_TIMED_OUT_TEXT);
  else expect(told).toBe(built.kind === 'exec' ? 'rejected by user' : 'patch rejected by user');
}

/**
 * Declares the matrix's tests for `scenarios` in the calling test file: one harness (with a
 * working bwrap) for the file, every policy × scenario, and every answer where a cell asks.
 */
export function describeMatrix(scenarios: readonly ScenarioName[]): void {
  let h: SafetyHarness;
  beforeAll(async () => {
    await requireBwrap();
    h = await SafetyHarness.start();
  });
  afterAll(async () => {
    await h?.close();
  });
  describe.each(POLICIES)('under approval policy %s', (policy) => {
    for (const scenario of scenarios) {
      if (isAskingCell(policy, scenario)) {
        it.each(ANSWERS)(cellTitle(policy, scenario), async (answer) => {
          await checkCell(h, policy, scenario, answer);
        });
      } else {
        it(cellTitle(policy, scenario), async () => {
          await checkCell(h, policy, scenario, null);
        });
      }
    }
  });
}
