/**
 * End-to-end with the built server over stdio (docs/extensions.md): a client tool declared in the
 * tagged form is called by the scripted model and answered by the client, and a client-run
 * process streams its output and exits. Every message is checked against 0.130 (the wire
 * validator) and, for the methods these features use, 0.171.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationTail, functionCall, startScriptedModelServer, text, type ScriptedModelServer, type StepHandler, type TempHome } from '@deputy/test-support';
import { serverMessageProblems } from '../../../../packages/protocol/test/support/reference-schema.js';
import { startThread, startTurn, turnCompleted } from '../support/turns.js';
import type { WireClient } from '../support/wire-client.js';
import { WireValidator } from '../support/wire-validator.js';
import { BUILD_TIMEOUT_MS, ensureBuilt, makeE2eHome, spawnServer, stdioClient, type ServerProcess } from './support/server-process.js';

const script: StepHandler = (request) => {
  const tail = conversationTail(request);
  if (tail.kind === 'tool-output') return { output: [text(`TOOL_RESULT: ${tail.output.output}`)] };
  return { output: [{ ...functionCall('open_file', { path: 'a.txt' }), namespace: 'codex_tui' }] };
};

let model: ScriptedModelServer;
let temp: TempHome;
let server: ServerProcess | undefined;
let client: WireClient | undefined;

beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
beforeEach(async () => {
  model = await startScriptedModelServer({ handler: script });
  temp = await makeE2eHome(model.url);
});
afterEach(async () => {
  await client?.close().catch(() => undefined);
  await server?.stop();
  server = undefined;
  client = undefined;
  await model.close();
  await temp.cleanup();
});

describe('extensions over stdio', () => {
  it('runs a client tool call and a client-run process against the built server', async () => {
    server = await spawnServer(temp, ['stdio://']);
    const validator = new WireValidator();
    client = stdioClient(server, validator);
    await client.initialize({ experimentalApi: true });
    const tools = [
      { type: 'namespace', name: 'codex_tui', description: 'Tools of the terminal UI.', tools: [{ type: 'function', name: 'open_file', description: 'Open a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }] },
    ];
    const { id } = await startThread(client, { dynamicTools: tools });
    const turnId = await startTurn(client, id, 'open it');
    const call = await client.waitForServerRequest('item/tool/call');
    expect(call.params).toMatchObject({ tool: 'open_file', namespace: 'codex_tui', arguments: { path: 'a.txt' } });
    await client.respond(call.id, { contentItems: [{ type: 'inputText', text: 'opened' }], success: true });
    await turnCompleted(client, turnId);
    const outputs = (model.requests.at(-1)?.body.input as Array<Record<string, unknown>>).filter((i) => i.type === 'function_call_output');
    expect(outputs.at(-1)?.output).toEqual([{ type: 'input_text', text: 'opened' }]);

    await client.call('process/spawn', { command: ['sh', '-c', 'printf streamed'], processHandle: 'p', cwd: temp.cwd, streamStdoutStderr: true });
    const exited = await client.waitForNotification('process/exited', (p) => p.processHandle === 'p');
    expect(exited.params).toMatchObject({ exitCode: 0, stdout: '' });
    const streamed = client.notifications('process/outputDelta').map((n) => Buffer.from(n.params.deltaBase64 as string, 'base64').toString('utf8'));
    expect(streamed.join('')).toBe('streamed');

    expect(validator.problems).toEqual([]);
    const owned = new Set(['item/tool/call', 'serverRequest/resolved', 'item/started', 'item/completed', 'process/outputDelta', 'process/exited']);
    expect(client.received.filter((m) => 'method' in m && owned.has(m.method)).flatMap((m) => serverMessageProblems(m, '0.171'))).toEqual([]);
  });
});
