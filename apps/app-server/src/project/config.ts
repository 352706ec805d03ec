/**
 * Projection of the resolved configuration to `config/read` (docs/app-server.md "Methods served"):
 * the merged layers in Codex's snake_case keys (every key clients commonly read present, null when
 * unset), the layer each dotted key comes from (`origins`), and, on request, the layers themselves,
 * highest precedence first. A layer's version is `sha256:` + the hex SHA-256 of its value as
 * compact JSON with recursively sorted keys. Pure apart from hashing.
 */
import { createHash } from 'node:crypto';
import type { ResolvedConfig } from '@deputy/engine';
import { canonicalJson } from '@deputy/engine/facts';
import type { AppServer } from '@deputy/protocol';

type Table = Record<string, unknown>;

/** Keys always present in `config` (null when no layer sets them). */
const KNOWN_KEYS = [
  'model',
  'review_model',
  'model_context_window',
  'model_auto_compact_token_limit',
  'model_provider',
  'approval_policy',
  'approvals_reviewer',
  'sandbox_mode',
  'sandbox_workspace_write',
  'web_search',
  'tools',
  'profile',
  'instructions',
  'developer_instructions',
  'compact_prompt',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'service_tier',
  'shell_environment_policy',
  'hooks',
] as const;

function isTable(value: unknown): value is Table {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The version of a layer's value. */
export function layerVersion(value: Table): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
}

function merge(base: Table, over: Table): Table {
  const out: Table = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isTable(prev) && isTable(value) ? merge(prev, value) : value;
  }
  return out;
}

function leafPaths(table: Table, prefix = ''): string[] {
  return Object.entries(table).flatMap(([key, value]) => {
    const dotted = prefix === '' ? key : `${prefix}.${key}`;
    return isTable(value) && Object.keys(value).length > 0 ? leafPaths(value, dotted) : [dotted];
  });
}

/**
 * A config table as clients are told it: an `approval_policy` of `on-failure` (at the top or in a
 * profile) reads `on-request` (`generation.ts`, `reportedApprovalPolicy`). Layer versions stay
 * those of the real tables, so a write against them is not refused as a conflict.
 */
function reportedTable(table: Table): Table {
  const out: Table = { ...table };
  if (out['approval_policy'] === 'on-failure') out['approval_policy'] = 'on-request';
  const profiles = out['profiles'];
  if (isTable(profiles)) {
    out['profiles'] = Object.fromEntries(
      Object.entries(profiles).map(([name, profile]) => [name, isTable(profile) ? reportedTable(profile) : profile]),
    );
  }
  return out;
}

/** Builds the `config/read` result. */
export function projectConfigRead(config: ResolvedConfig, includeLayers: boolean): AppServer.ConfigReadResult {
  const userTable = config.sources.fileTable;
  const sessionTable = config.sources.overrideLayers.reduce<Table>((acc, layer) => merge(acc, layer.table), {});
  const layers: AppServer.ConfigLayer[] = [];
  if (Object.keys(sessionTable).length > 0) {
    layers.push({ name: { type: 'sessionFlags' }, version: layerVersion(sessionTable), config: sessionTable });
  }
  layers.push({ name: { type: 'user', file: config.configPath }, version: layerVersion(userTable), config: userTable });
  const origins: Record<string, AppServer.ConfigLayerMetadata> = {};
  // Lowest precedence first, so a higher layer overwrites the origin of a key it also sets.
  for (const layer of [...layers].reverse()) {
    for (const key of leafPaths(layer.config as Table)) origins[key] = { name: layer.name, version: layer.version };
  }
  const known = Object.fromEntries(KNOWN_KEYS.map((k) => [k, null]));
  const result: AppServer.ConfigReadResult = { config: reportedTable({ ...known, profiles: {}, ...config.raw }), origins };
  if (includeLayers) result.layers = layers.map((layer) => ({ ...layer, config: reportedTable(layer.config as Table) }));
  return result;
}
