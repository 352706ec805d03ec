/**
 * The MCP OAuth login shapes against Codex 0.171.0's reference JSON Schema as well as 0.130.0's
 * (which conformance.test.ts checks): every `mcpServer/oauth/login` and
 * `mcpServer/oauthLogin/completed` fixture example, as written and after our schema parsed it,
 * is valid for a current client (`loginId` is the field 0.171 added).
 */
import { describe, expect, it } from 'vitest';
import { clientRequests, serverNotifications } from '../../src/app-server/methods.js';
import { fixtureParams, readFixture } from '../support/fixtures.js';
import { problemsAgainstDefinition } from '../support/reference-schema.js';

function expectValid(name: string, value: unknown): void {
  expect(problemsAgainstDefinition(name, value, '0.171'), JSON.stringify(value)).toEqual([]);
}

describe('MCP OAuth shapes against Codex 0.171.0', () => {
  it('mcpServer/oauth/login params and results', () => {
    const fixture = readFixture('client-requests', 'mcpServer/oauth/login');
    const spec = clientRequests['mcpServer/oauth/login'];
    for (const example of fixture.params) {
      expectValid('McpServerOauthLoginParams', fixtureParams(example));
      expectValid('McpServerOauthLoginParams', spec.params.parse(fixtureParams(example)));
    }
    for (const example of fixture.results ?? []) {
      expectValid('McpServerOauthLoginResponse', example);
      expectValid('McpServerOauthLoginResponse', spec.result.parse(example));
    }
  });

  it('mcpServer/oauthLogin/completed params', () => {
    const fixture = readFixture('server-notifications', 'mcpServer/oauthLogin/completed');
    for (const example of fixture.params) {
      expectValid('McpServerOauthLoginCompletedNotification', fixtureParams(example));
      expectValid('McpServerOauthLoginCompletedNotification', serverNotifications['mcpServer/oauthLogin/completed'].params.parse(fixtureParams(example)));
    }
  });
});
