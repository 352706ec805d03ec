/**
 * The model catalogue `model/list` serves: the configured provider's own list (`GET /models`),
 * described with the engine's built-in metadata (reasoning efforts and their default), with the
 * configured model first and marked default. The provider is asked at most every few minutes;
 * when it cannot answer (offline, no `/models`), the catalogue is the configured model alone, so
 * `model/list` never fails (the TUI cannot start without it). The demo provider lists its model.
 */
import { describeModel, listProviderModels, type ResolvedConfig } from '@deputy/engine';
import type { AppServer, ReasoningEffort } from '@deputy/protocol';
import type { AppLogger } from './logger.js';

/** How long a fetched list is reused. */
const CACHE_MS = 5 * 60_000;
/** How long the provider may take to list its models. */
const LIST_TIMEOUT_MS = 5_000;

const EFFORT_DESCRIPTIONS: Record<ReasoningEffort, string> = {
  none: 'No reasoning: fastest answers',
  minimal: 'Very little reasoning, for simple requests',
  low: 'Light reasoning for quick answers',
  medium: 'Balances speed and depth of reasoning',
  high: 'Deeper reasoning for complex problems',
  xhigh: 'Maximum reasoning depth for the hardest problems',
};

interface ModelFacts {
  slug: string;
  displayName: string;
  reasoningEfforts: ReasoningEffort[];
  defaultEffort: ReasoningEffort | null;
  ownedBy?: string | null;
}

/** One catalogue entry on the wire. */
export function wireModel(facts: ModelFacts, providerName: string, isDefault: boolean): AppServer.Model {
  const owner = facts.ownedBy ? `, owned by ${facts.ownedBy}` : '';
  return {
    id: facts.slug,
    model: facts.slug,
    upgrade: null,
    upgradeInfo: null,
    availabilityNux: null,
    displayName: facts.displayName,
    description: `${facts.displayName} via ${providerName}${owner}`,
    hidden: false,
    supportedReasoningEfforts: facts.reasoningEfforts.map((e) => ({ reasoningEffort: e, description: EFFORT_DESCRIPTIONS[e] })),
    defaultReasoningEffort: facts.defaultEffort ?? 'none',
    inputModalities: ['text', 'image'],
    supportsPersonality: false,
    additionalSpeedTiers: [],
    serviceTiers: [],
    isDefault,
  };
}

/** See the module comment. */
export class ModelCatalog {
  #cached: { at: number; models: AppServer.Model[] } | null = null;

  constructor(
    private readonly config: ResolvedConfig,
    private readonly logger: AppLogger,
  ) {}

  /** The catalogue, configured model first. */
  async list(signal: AbortSignal): Promise<AppServer.Model[]> {
    if (this.#cached && Date.now() - this.#cached.at < CACHE_MS) return this.#cached.models;
    const models = await this.#fetch(signal);
    this.#cached = { at: Date.now(), models };
    return models;
  }

  async #fetch(signal: AbortSignal): Promise<AppServer.Model[]> {
    const { config } = this;
    const providerName = config.provider.name;
    const configured = wireModel(describeModel(config.model, config.modelProviderId), providerName, true);
    const baseUrl = config.provider.baseUrl;
    if (config.modelProviderId === 'demo' || !baseUrl) return [configured];
    try {
      const listed = await listProviderModels({ ...config.provider, baseUrl }, AbortSignal.any([signal, AbortSignal.timeout(LIST_TIMEOUT_MS)]));
      const others = listed.filter((m) => m.slug !== config.model).map((m) => wireModel(m, providerName, false));
      return [configured, ...others];
    } catch (e) {
      this.logger.warn('the model provider did not list its models; model/list shows the configured model only', {
        provider: config.modelProviderId,
        error: (e as Error).message,
      });
      return [configured];
    }
  }
}
