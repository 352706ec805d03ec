/**
 * The MCP OAuth login shapes against Codex 0.171.0's reference JSON Schema as well as 0.130.0's
 * (which conformance.test.ts checks): every `mcpServer/oauth/login` and
 * `mcpServer/oauthLogin/completed` fixture example, as written and after our schema parsed it,
 * is valid for a current client (`loginId` is the field 0.171 added).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { clientRequests, serverNotifications } from '../../src/app-server/methods.js';
import { fixtureParams, readFixture } from '../support/fixtures.js';

const dir = new URL('../reference-schema/codex-0.171/v2/', import.meta.url);
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
const validator = (name: string) => ajv.compile(JSON.parse(readFileSync(fileURLToPath(new URL(`${name}.json`, dir)), 'utf8')) as object);

function expectValid(name: string, value: unknown): void {
  const validate = validator(name);
  expect(validate(value), `${name}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
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
