/**
 * The model catalogue: what Deputy knows about a model slug (context window, reasoning efforts,
 * reasoning summaries) from built-in metadata for OpenAI's model families, with safe defaults
 * and `known: false` for anything else (the caller decides whether to warn), plus the provider's
 * live `GET /models` list merged with that metadata. Windows are input budgets as the reference
 * uses them (the gpt-5 family's 400k total includes 128k of output, leaving 272k of input).
 */
import type { ReasoningEffort } from '@deputy/protocol';
import { ModelAbortedError, ModelApiError } from './errors.js';
import type { ProviderConnection } from './provider.js';
import { createOpenAiSdk } from './sdk-client.js';

/** What Deputy knows about one model. */
export interface ModelInfo {
  /** The model id as configured / as the provider lists it. */
  slug: string;
  /** A readable name for pickers. */
  displayName: string;
  /** Input tokens the model accepts. */
  contextWindow: number;
  supportsReasoning: boolean;
  /** Efforts the model accepts, lowest first (empty without reasoning). */
  reasoningEfforts: ReasoningEffort[];
  /** The effort used when none is configured (null without reasoning). */
  defaultEffort: ReasoningEffort | null;
  /** Whether `reasoning.summary` may be requested. */
  supportsReasoningSummaries: boolean;
  /** Whether the model reads images (the reference's default; false for text-only families). */
  supportsImageInput: boolean;
  /** False when the slug matched no built-in entry and the fields are defaults. */
  known: boolean;
}

/** A model from the provider's list, with catalogue metadata. */
export interface ProviderModel extends ModelInfo {
  /** `owned_by` as the provider reports it. */
  ownedBy: string | null;
}

/** Context window assumed for unknown models. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

type Family = Omit<ModelInfo, 'slug' | 'displayName' | 'known'>;

const NO_REASONING: Pick<Family, 'supportsReasoning' | 'reasoningEfforts' | 'defaultEffort' | 'supportsReasoningSummaries'> = {
  supportsReasoning: false,
  reasoningEfforts: [],
  defaultEffort: null,
  supportsReasoningSummaries: false,
};

function reasoningFamily(contextWindow: number, efforts: ReasoningEffort[], summaries = true, images = true): Family {
  return { contextWindow, supportsReasoning: true, reasoningEfforts: efforts, defaultEffort: 'medium', supportsReasoningSummaries: summaries, supportsImageInput: images };
}

/** The gpt-5 line: efforts grew with the minor version (none from 5.1, xhigh from 5.2 / codex-max). */
function gpt5Family(slug: string): Family | null {
  const match = /^gpt-5(?:\.(\d+))?(?:-(codex))?(?:-(mini|nano|max|pro))?(?:$|-)/.exec(slug);
  if (match === null) return null;
  if (slug.includes('-chat')) return { contextWindow: 128_000, ...NO_REASONING, supportsImageInput: true };
  const minor = Number(match[1] ?? 0);
  const isCodex = match[2] === 'codex';
  const variant = match[3];
  if (isCodex && variant === 'mini') return reasoningFamily(272_000, ['medium', 'high']);
  if (isCodex) {
    const xhigh = minor >= 2 || variant === 'max';
    return reasoningFamily(272_000, xhigh ? ['low', 'medium', 'high', 'xhigh'] : ['low', 'medium', 'high']);
  }
  if (variant === 'mini' || variant === 'nano') return reasoningFamily(272_000, ['minimal', 'low', 'medium', 'high']);
  if (variant === 'pro') return reasoningFamily(272_000, ['high']);
  if (minor === 0) return reasoningFamily(272_000, ['minimal', 'low', 'medium', 'high']);
  return reasoningFamily(272_000, minor >= 2 ? ['none', 'low', 'medium', 'high', 'xhigh'] : ['none', 'low', 'medium', 'high']);
}

/** Built-in families, most specific first. */
const FAMILIES: Array<{ pattern: RegExp; family: Family }> = [
  { pattern: /^gpt-4\.1(?:$|-)/, family: { contextWindow: 1_047_576, ...NO_REASONING, supportsImageInput: true } },
  { pattern: /^gpt-4o(?:$|-)/, family: { contextWindow: 128_000, ...NO_REASONING, supportsImageInput: true } },
  { pattern: /^o3-mini(?:$|-)/, family: reasoningFamily(200_000, ['low', 'medium', 'high'], false) },
  { pattern: /^(?:o3|o4-mini|codex-mini)(?:$|-)/, family: reasoningFamily(200_000, ['low', 'medium', 'high']) },
  // The open-weight models read text only.
  { pattern: /^gpt-oss-/, family: reasoningFamily(131_072, ['low', 'medium', 'high'], false, false) },
];

/** The model id without a router prefix such as `openai/`. */
function bareSlug(model: string): string {
  return (model.split('/').at(-1) ?? model).trim().toLowerCase();
}

/** Describes `model` as served by provider `providerId`; unknown slugs get defaults and `known: false`. */
export function describeModel(model: string, providerId: string): ModelInfo {
  if (providerId === 'demo') {
    return { slug: model, displayName: `${model} (offline demo model)`, contextWindow: DEFAULT_CONTEXT_WINDOW, ...NO_REASONING, supportsImageInput: false, known: true };
  }
  const slug = bareSlug(model);
  const family = gpt5Family(slug) ?? FAMILIES.find((f) => f.pattern.test(slug))?.family ?? null;
  if (family === null) {
    return { slug: model, displayName: model, contextWindow: DEFAULT_CONTEXT_WINDOW, ...NO_REASONING, supportsImageInput: true, known: false };
  }
  return { slug: model, displayName: model, ...family, reasoningEfforts: [...family.reasoningEfforts], known: true };
}

/** Reads the provider's `GET /models` and describes each model. Throws `ModelApiError` / `ModelAbortedError`. */
export async function listProviderModels(provider: ProviderConnection, signal: AbortSignal): Promise<ProviderModel[]> {
  const sdk = createOpenAiSdk(provider);
  const models: ProviderModel[] = [];
  try {
    for await (const model of sdk.models.list({ signal })) {
      models.push({ ...describeModel(model.id, provider.id), ownedBy: model.owned_by ?? null });
    }
  } catch (e) {
    if (signal.aborted) throw new ModelAbortedError();
    throw ModelApiError.fromSdkError(e);
  }
  if (signal.aborted) throw new ModelAbortedError();
  return models;
}
