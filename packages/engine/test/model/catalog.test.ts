import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModelServer, type ScriptedModelServer } from '@deputy/test-support';
import { DEFAULT_CONTEXT_WINDOW, describeModel, listProviderModels } from '../../src/model/catalog.js';
import { ModelAbortedError } from '../../src/model/errors.js';
import { providerFor } from './helpers.js';

describe('describeModel', () => {
  it.each([
    ['gpt-5.2-codex', 272_000, ['low', 'medium', 'high', 'xhigh']],
    ['gpt-5-codex', 272_000, ['low', 'medium', 'high']],
    ['gpt-5.1-codex-max', 272_000, ['low', 'medium', 'high', 'xhigh']],
    ['gpt-5.1-codex-mini', 272_000, ['medium', 'high']],
    ['gpt-5', 272_000, ['minimal', 'low', 'medium', 'high']],
    ['gpt-5.5', 272_000, ['none', 'low', 'medium', 'high', 'xhigh']],
    ['gpt-5-mini-2025-08-07', 272_000, ['minimal', 'low', 'medium', 'high']],
    ['o3', 200_000, ['low', 'medium', 'high']],
    ['o4-mini', 200_000, ['low', 'medium', 'high']],
    ['openai/gpt-5.2-codex', 272_000, ['low', 'medium', 'high', 'xhigh']],
  ])('knows the reasoning model %s', (slug, contextWindow, efforts) => {
    expect(describeModel(slug, 'openai')).toEqual({
      slug,
      displayName: slug,
      contextWindow,
      supportsReasoning: true,
      reasoningEfforts: efforts,
      defaultEffort: 'medium',
      supportsReasoningSummaries: true,
      supportsImageInput: true,
      known: true,
    });
  });

  it('knows the gpt-4.1 family as a non-reasoning model with a million-token window', () => {
    expect(describeModel('gpt-4.1-mini', 'openai')).toMatchObject({ contextWindow: 1_047_576, supportsReasoning: false, reasoningEfforts: [], defaultEffort: null, known: true });
  });

  it('gives unknown models safe defaults and known: false', () => {
    expect(describeModel('llama3.3:70b', 'ollama')).toEqual({
      slug: 'llama3.3:70b',
      displayName: 'llama3.3:70b',
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      supportsReasoning: false,
      reasoningEfforts: [],
      defaultEffort: null,
      supportsReasoningSummaries: false,
      supportsImageInput: true,
      known: false,
    });
    expect(describeModel('gpt-50', 'openai').known).toBe(false);
  });

  it('knows the open-weight gpt-oss models and the demo model read text only', () => {
    expect(describeModel('gpt-oss-120b', 'openai')).toMatchObject({ known: true, supportsImageInput: false });
    expect(describeModel('demo', 'demo').supportsImageInput).toBe(false);
    expect(describeModel('gpt-4o', 'openai').supportsImageInput).toBe(true);
  });

  it('describes any model of the demo provider as the offline demo', () => {
    expect(describeModel('demo', 'demo')).toMatchObject({ known: true, supportsReasoning: false, displayName: 'demo (offline demo model)' });
  });
});

describe('listProviderModels', () => {
  let server: ScriptedModelServer;
  beforeEach(async () => {
    server = await startScriptedModelServer({ models: ['gpt-5.2-codex', { id: 'my-finetune', owned_by: 'org-1' }] });
  });
  afterEach(async () => {
    await server.close();
  });

  it("reads GET /models and merges the catalogue's metadata", async () => {
    const models = await listProviderModels(providerFor(server, { queryParams: { v: '1' } }), new AbortController().signal);
    expect(models).toEqual([
      expect.objectContaining({ slug: 'gpt-5.2-codex', known: true, supportsReasoning: true, ownedBy: 'scripted' }),
      expect.objectContaining({ slug: 'my-finetune', known: false, contextWindow: DEFAULT_CONTEXT_WINDOW, ownedBy: 'org-1' }),
    ]);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models', query: { v: '1' } });
  });

  it('throws typed errors for an unreachable provider and for an abort', async () => {
    const closed = await startScriptedModelServer();
    const port = closed.port;
    await closed.close();
    const aborted = new AbortController();
    aborted.abort();
    await expect(listProviderModels(providerFor(server), aborted.signal)).rejects.toBeInstanceOf(ModelAbortedError);
    await expect(listProviderModels({ ...providerFor(server), baseUrl: `http://127.0.0.1:${port}/v1` }, new AbortController().signal)).rejects.toMatchObject({
      code: 'connectionFailed',
    });
  });
});
