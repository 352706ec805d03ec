/**
 * The `codex exec` scenarios captured from the reference (fixtures/*.json, by
 * scripts/capture-codex-exec.mjs) and replayed against `deputy exec` by codex-exec-compat.test.ts.
 * Each names the model's scripted responses and the command line; the tools used (`exec_command`,
 * `apply_patch`, `update_plan`) exist under the same names in both implementations.
 */
import { customToolCall, functionCall, reasoning, text } from '@deputy/test-support';
import type { ExecScenario } from './harness.js';

const SKIP = '--skip-git-repo-check';

const ADD_AND_UPDATE_PATCH = ['*** Begin Patch', '*** Add File: notes.txt', '+first note', '*** Update File: a.txt', '@@', '-one', '+uno', '*** Delete File: b.txt', '*** End Patch'].join('\n');

const ANSWER_SCHEMA = JSON.stringify({
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
  additionalProperties: false,
});

export const SCENARIOS: ExecScenario[] = [
  {
    name: 'message',
    run: { steps: () => [{ output: [text('Hello from the model.')] }], args: () => ['exec', '--json', SKIP, 'Say hello'] },
  },
  {
    name: 'command-stdin-prompt',
    run: {
      steps: () => [{ output: [reasoning('Listing first.'), functionCall('exec_command', { cmd: 'echo hi' })] }, { output: [text('It printed hi.')], usage: { input_tokens: 40, cached_tokens: 8, output_tokens: 6 } }],
      args: () => ['exec', '--experimental-json', SKIP],
      stdin: 'Run echo hi',
    },
  },
  {
    name: 'command-failed',
    run: {
      steps: () => [{ output: [functionCall('exec_command', { cmd: 'echo oops >&2; exit 3' })] }, { output: [text('It failed with 3.')] }],
      args: () => ['exec', '--json', SKIP, '-'],
      stdin: 'Run the failing command',
    },
  },
  {
    name: 'file-change',
    files: { 'a.txt': 'one\n', 'b.txt': 'gone\n' },
    run: {
      steps: () => [{ output: [customToolCall('apply_patch', ADD_AND_UPDATE_PATCH)] }, { output: [text('Patched.')] }],
      args: () => ['exec', '--json', SKIP, 'Edit the files'],
    },
  },
  {
    name: 'todo-list',
    run: {
      steps: () => [
        { output: [functionCall('update_plan', { plan: [{ step: 'Look around', status: 'in_progress' }, { step: 'Report', status: 'pending' }] })] },
        { output: [functionCall('update_plan', { plan: [{ step: 'Look around', status: 'completed' }, { step: 'Report', status: 'in_progress' }] })] },
        { output: [text('Reported.')] },
      ],
      args: () => ['exec', '--json', SKIP, 'Plan and report'],
    },
  },
  {
    name: 'turn-failed',
    run: {
      steps: () => [{ fault: 'http', status: 400, body: { error: { message: 'Invalid request: scripted failure', type: 'invalid_request_error', code: null, param: null } } }],
      args: () => ['exec', '--json', SKIP, 'This will fail'],
    },
  },
  {
    name: 'output-schema',
    scratchFiles: { 'schema.json': ANSWER_SCHEMA },
    run: {
      steps: () => [{ output: [text('{"answer":"forty-two"}')] }],
      args: (ctx) => ['exec', '--json', SKIP, '--output-schema', `${ctx.scratch}/schema.json`, '-o', `${ctx.scratch}/last.txt`, 'Answer in JSON'],
    },
  },
  {
    name: 'resume',
    before: [{ steps: () => [{ output: [text('First answer.')] }], args: () => ['exec', '--json', SKIP, 'First question'] }],
    run: {
      steps: () => [{ output: [text('Second answer.')] }],
      args: (ctx) => ['exec', '--json', SKIP, 'resume', ctx.previousThreadId, 'Second question'],
    },
  },
  {
    name: 'resume-last',
    before: [{ steps: () => [{ output: [text('First answer.')] }], args: () => ['exec', '--json', SKIP, 'First question'] }],
    run: {
      steps: () => [{ output: [text('Second answer.')] }],
      args: () => ['exec', '--json', SKIP, 'resume', '--last', 'Second question'],
    },
  },
  {
    name: 'human-output',
    run: {
      steps: () => [{ output: [text('Plain answer.')] }],
      args: (ctx) => ['exec', SKIP, '-o', `${ctx.scratch}/last.txt`, 'Say something'],
    },
  },
  {
    name: 'git-repo',
    git: true,
    run: { steps: () => [{ output: [text('Inside a repository.')] }], args: () => ['exec', '--json', 'Say hello'] },
  },
  {
    name: 'not-a-git-repo',
    run: { steps: () => [], args: () => ['exec', '--json', 'Say hello'] },
  },
  {
    name: 'resume-unknown-id',
    run: { steps: () => [], args: () => ['exec', '--json', SKIP, 'resume', '0199a213-81c0-7800-8aa1-bbab2a035a53', 'Hello again'] },
  },
  {
    name: 'missing-cd',
    run: { steps: () => [], args: (ctx) => ['exec', '--json', SKIP, '-C', `${ctx.scratch}/nowhere`, 'Hello'] },
  },
];
