/**
 * Client tools and questions in the engine, with a front door that supports neither (the CLI's
 * port): a question in plan mode is answered "no user available" at once, a client tool call fails
 * with the reference's text, and on the Chat Completions wire namespaced client tools are flat
 * functions named `<namespace><name>`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { functionCall, functionOutputs, text, toolNames } from '@deputy/test-support';
import { CLIENT_TOOL_CANCELLED_TEXT } from '../../src/tools/client/dynamic-tools.js';
import { NO_USER_AVAILABLE_TEXT } from '../../src/tools/request-user-input/request-user-input.js';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';

let engine: TestEngine | null = null;
afterEach(async () => {
  await engine?.close();
  engine = null;
});

const QUESTION = { id: 'q', header: 'Q', question: 'Which?', options: [{ label: 'A', description: 'a' }, { label: 'B', description: 'b' }] };
const TOOL = { name: 'ping', description: 'Ping', inputSchema: { type: 'object', properties: {} }, namespace: 'ide', namespaceDescription: null, deferLoading: false };

describe('without a front door that can ask', () => {
  it('answers a question in plan mode with "no user available" at once', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [functionCall('request_user_input', { questions: [QUESTION] })] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    const turn = await thread.startTurn([{ type: 'text', text: 'ask' }], { collaborationMode: 'plan' }).done;
    expect(turn.status).toBe('completed');
    expect(toolNames(engine.server.requests[0]!)).toContain('request_user_input');
    expect(functionOutputs(engine.server.requests[1]!)[0]?.output).toBe(NO_USER_AVAILABLE_TEXT);
  });

  it('refuses request_user_input outside plan mode, as the reference does', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [functionCall('request_user_input', { questions: [QUESTION] })] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd });
    await thread.startTurn([{ type: 'text', text: 'ask' }]).done;
    expect(toolNames(engine.server.requests[0]!)).not.toContain('request_user_input');
    expect(functionOutputs(engine.server.requests[1]!)[0]?.output).toBe('request_user_input is unavailable in Default mode');
  });

  it('fails a client tool call and offers namespaced tools flat on the chat wire', async () => {
    engine = await startTestEngine({ wire: 'chat' });
    engine.server.enqueue({ output: [functionCall('ideping', {})] }, { output: [text('ok')] });
    const thread = await engine.manager.start({ cwd: engine.temp.cwd, dynamicTools: [TOOL] });
    const turn = await thread.startTurn([{ type: 'text', text: 'ping' }]).done;
    expect(turn.status).toBe('completed');
    expect(toolNames(engine.server.requests[0]!)).toContain('ideping');
    expect(functionOutputs(engine.server.requests[1]!)[0]?.output).toBe(CLIENT_TOOL_CANCELLED_TEXT);
  });

  it('leaves out a top-level client tool named like a built-in one', async () => {
    engine = await startTestEngine();
    engine.server.enqueue({ output: [text('ok')] });
    const shadow = { ...TOOL, name: 'exec_command', namespace: null };
    const thread = await engine.manager.start({ cwd: engine.temp.cwd, dynamicTools: [shadow, TOOL] });
    await thread.startTurn([{ type: 'text', text: 'x' }]).done;
    const names = toolNames(engine.server.requests[0]!);
    expect(names.filter((n) => n === 'exec_command')).toHaveLength(1);
    expect(names).toContain('ide');
  });
});
