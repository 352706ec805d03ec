/**
 * Behaviour of the method tables and the schemas they point at: strict spellings, ignored
 * unknown fields, the `params` requirement, absolute paths, the experimental gate, and the
 * notification audiences as the docs state them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  clientRequests,
  serverNotifications,
  experimentalReasonOf,
  GRANULAR_APPROVAL_DESCRIPTOR,
  isClientRequestMethod,
  isServerNotificationMethod,
  type ParamsOf,
  type ResultOf,
} from '../../src/app-server/methods.js';
import { isAbsolutePath } from '../../src/app-server/primitives.js';
import { isAcceptedClientRequestMethod } from '../../src/app-server/unsupported.js';

const threadId = '01a22863-5be0-7f80-a1e1-921d0027bd66';

describe('params strictness', () => {
  it('rejects camelCase sandbox modes and approval policies that the reference rejects', () => {
    const start = clientRequests['thread/start'].params;
    expect(start.safeParse({ sandbox: 'workspaceWrite' }).success).toBe(false);
    expect(start.safeParse({ approvalPolicy: 'onRequest' }).success).toBe(false);
    expect(start.safeParse({ sandbox: 'workspace-write', approvalPolicy: 'on-request' }).success).toBe(true);
  });

  it('accepts the granular approval policy only with its required flags and no extra keys', () => {
    const start = clientRequests['thread/start'].params;
    const granular = { sandbox_approval: true, rules: false, mcp_elicitations: false };
    expect(start.safeParse({ approvalPolicy: { granular } }).success).toBe(true);
    expect(start.safeParse({ approvalPolicy: { granular: {} } }).success).toBe(false);
    expect(start.safeParse({ approvalPolicy: { granular, extra: 1 } }).success).toBe(false);
  });

  it('rejects a sandbox policy given as a string on turn/start', () => {
    const turn = clientRequests['turn/start'].params;
    const input = [{ type: 'text', text: 'hi' }];
    expect(turn.safeParse({ threadId, input, sandboxPolicy: 'workspace-write' }).success).toBe(false);
    expect(turn.safeParse({ threadId, input, sandboxPolicy: { type: 'workspaceWrite' } }).success).toBe(true);
  });

  it('drops unknown fields instead of refusing them, as the reference ignores them', () => {
    const parsed: ParamsOf<'thread/loaded/list'> = clientRequests['thread/loaded/list'].params.parse({ bogusField: 1 });
    expect(parsed).toEqual({});
  });

  it('refuses a relative path with the reference wording', () => {
    const parsed = clientRequests['fs/readFile'].params.safeParse({ path: 'relative/path.txt' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('AbsolutePathBuf deserialized without a base path');
    expect(isAbsolutePath('/tmp/a')).toBe(true);
    expect(isAbsolutePath('C:\\Users\\a')).toBe(true);
    expect(isAbsolutePath('./a')).toBe(false);
  });

  it('refuses missing params for every method except those the reference defines without params', () => {
    const withoutParams = Object.entries(clientRequests)
      .filter(([, spec]) => !spec.paramsRequired)
      .map(([method]) => method);
    expect(withoutParams).toEqual([
      'config/mcpServer/reload',
      'account/logout',
      'account/rateLimits/read',
      'configRequirements/read',
      // 0.171: defined without params, or with params that may be absent.
      'rollout/compress',
      'account/gatewayOAuth/read',
      'account/gatewayOAuth/cancel',
      'remoteControl/disable',
      'remoteControl/status/read',
      'account/securitySetup/read',
      'account/usage/read',
      'account/workspaceMessages/read',
      'externalAgentConfig/import/readHistories',
    ]);
    for (const [method, spec] of Object.entries(clientRequests)) {
      expect(spec.params.safeParse(undefined).success, method).toBe(!spec.paramsRequired);
    }
  });
});

describe('result schemas', () => {
  it('require the fields the reference always sends, null when empty', () => {
    const turn: ResultOf<'turn/start'>['turn'] = {
      id: 't',
      items: [],
      itemsView: 'notLoaded',
      status: 'inProgress',
      error: null,
      startedAt: null,
      completedAt: null,
      durationMs: null,
    };
    const result = clientRequests['turn/start'].result;
    expect(result.safeParse({ turn }).success).toBe(true);
    const { durationMs: _durationMs, ...withoutDuration } = turn;
    expect(result.safeParse({ turn: withoutDuration }).success).toBe(false);
  });
});

describe('experimentalReasonOf', () => {
  it('names the method for a wholly experimental method', () => {
    expect(experimentalReasonOf('collaborationMode/list', {})).toBe('collaborationMode/list');
  });

  it('names a gated field only when it carries a value', () => {
    expect(experimentalReasonOf('thread/start', { dynamicTools: [] })).toBe('thread/start.dynamicTools');
    expect(experimentalReasonOf('thread/start', { persistExtendedHistory: true })).toBe('thread/start.persistFullHistory');
    expect(
      experimentalReasonOf('thread/start', { dynamicTools: null, experimentalRawEvents: false, persistExtendedHistory: false }),
    ).toBeUndefined();
    expect(experimentalReasonOf('thread/resume', { threadId, excludeTurns: true })).toBe('thread/resume.excludeTurns');
  });

  it('names a gated variant of a tagged params union', () => {
    expect(
      experimentalReasonOf('account/login/start', { type: 'chatgptAuthTokens', accessToken: 'x', chatgptAccountId: 'a' }),
    ).toBe('account/login/start.chatgptAuthTokens');
    expect(experimentalReasonOf('account/login/start', { type: 'apiKey', apiKey: 'sk-test' })).toBeUndefined();
  });

  it('names the granular approval policy wherever an approvalPolicy appears', () => {
    const approvalPolicy = { granular: { sandbox_approval: true, rules: true, mcp_elicitations: true } };
    expect(experimentalReasonOf('turn/start', { threadId, input: [], approvalPolicy })).toBe(GRANULAR_APPROVAL_DESCRIPTOR);
    expect(experimentalReasonOf('turn/start', { threadId, input: [], approvalPolicy: 'never' })).toBeUndefined();
  });

  it('finds nothing in the params the TUI sends to thread/start', () => {
    const tuiParams = {
      model: 'mock-model',
      approvalPolicy: 'on-request',
      approvalsReviewer: 'user',
      sandbox: 'read-only',
      permissions: null,
      environments: null,
      dynamicTools: null,
      mockExperimentalField: null,
      experimentalRawEvents: false,
      persistExtendedHistory: false,
    };
    expect(experimentalReasonOf('thread/start', clientRequests['thread/start'].params.parse(tuiParams))).toBeUndefined();
  });
});

describe('method lookups', () => {
  it('tell served, accepted and unknown names apart', () => {
    expect(isClientRequestMethod('thread/start')).toBe(true);
    expect(isClientRequestMethod('thread/increment_elicitation')).toBe(false);
    expect(isAcceptedClientRequestMethod('thread/increment_elicitation')).toBe(true);
    expect(isAcceptedClientRequestMethod('getAuthStatus')).toBe(true);
    expect(isAcceptedClientRequestMethod('no/such/method')).toBe(false);
    expect(isClientRequestMethod('toString')).toBe(false);
    expect(isServerNotificationMethod('turn/completed')).toBe(true);
  });
});

describe('notification audiences', () => {
  it('agree with the "sent to" column of the Notifications table in docs/app-server.md', () => {
    const docs = readFileSync(new URL('../../../../docs/app-server.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('## Notifications'), docs.indexOf('## Approvals'));
    const audienceOf = (sentTo: string): string | null =>
      sentTo === 'every initialized connection' ? 'all' : sentTo.startsWith('subscribers') ? 'subscribers' : sentTo === 'the connection' ? 'connection' : null;
    const checked: string[] = [];
    for (const line of section.split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      const audience = audienceOf(cells[2] ?? '');
      if (audience === null) continue;
      for (const [, method] of (cells[1] ?? '').matchAll(/`([^`]+)`/g)) {
        expect([method, serverNotifications[method as keyof typeof serverNotifications]?.audience]).toEqual([method, audience]);
        checked.push(method as string);
      }
    }
    expect(checked.length).toBeGreaterThan(15);
  });
});
