/**
 * Handlers of the start-up lists (docs/app-server.md "Methods served"; docs/extensions.md): `skills/list`
 * and `hooks/list` (the engine's own discovery, the same the turns use), `skills/extraRoots/set`
 * (more skill roots for this server's life, for `skills/list` and the turns), `skills/config/write`
 * (a `[[skills.config]]` entry of the user config.toml, applied to the running config),
 * `app/list` (ChatGPT apps need ChatGPT auth: always empty), `collaborationMode/list` (the two
 * presets, experimental) and `experimentalFeature/list` (Deputy has no feature flags: empty).
 * The skill roots of every cwd listed are watched; a change sends `skills/changed` to everyone.
 */
import path from 'node:path';
import { discoverHooks, discoverSkills, isSkillEnabled, skillToggles, SkillsWatcher, writeUserConfig } from '@deputy/engine';
import { RpcError } from '@deputy/rpc/core';
import type { AppContext } from '../app-context.js';
import { layerVersion } from '../project/config.js';
import { projectHookEntry, projectSkillSet } from '../project/hooks.js';
import { notification } from '../project/notifications.js';
import type { Handlers } from './types.js';

/** The router key `skills/changed` is published under (an audience-`all` notification). */
const SKILLS_DELIVERY_KEY = 'skills';

function cwdsOf(app: AppContext, cwds: string[] | undefined): string[] {
  return cwds && cwds.length > 0 ? cwds.map((c) => path.resolve(app.cwd, c)) : [app.cwd];
}

/** The `[[skills.config]]` entries after choosing `enabled` for one selector (earlier entries for it dropped). */
function withToggle(table: unknown, selector: { path?: string; name?: string }, enabled: boolean): Array<Record<string, unknown>> {
  const kept = skillToggles(table).filter((t) => (selector.path !== undefined ? t.path !== selector.path : t.name !== selector.name));
  return [...kept.map((t) => ({ ...t })), { ...selector, enabled }];
}

/** The watcher of listed skill folders: a change sends `skills/changed` to every connection. Close it with the server. */
export function createSkillsWatcher(app: AppContext): SkillsWatcher {
  return new SkillsWatcher({
    home: app.runtime.home,
    onChange: () => app.router.publish(SKILLS_DELIVERY_KEY, [notification('skills/changed', {})]),
  });
}

/** The handlers of this area; `skills/list` makes `watcher` watch the folders it listed. */
export function catalogHandlers(app: AppContext, watcher: SkillsWatcher): Handlers {
  return {
    'skills/list': async (params) => {
      const cwds = cwdsOf(app, params.cwds);
      for (const cwd of cwds) watcher.watchCwd(cwd);
      const skillsTable = app.runtime.config.sources.fileTable.skills;
      const extraRoots = app.runtime.extraSkillRoots;
      const sets = await Promise.all(cwds.map((cwd) => discoverSkills({ home: app.runtime.home, cwd, skillsTable, extraRoots })));
      return { data: sets.map(projectSkillSet) };
    },
    'skills/extraRoots/set': (params) => {
      app.runtime.setExtraSkillRoots([...new Set(params.extraRoots.map((root) => path.resolve(root)))]);
      return {};
    },
    'skills/config/write': async (params) => {
      const selector = params.path ? { path: path.resolve(app.cwd, params.path) } : params.name ? { name: params.name } : null;
      if (!selector) throw RpcError.invalidRequest('skills/config/write needs a `path` or a `name`');
      const config = app.runtime.config;
      const entries = withToggle(config.sources.fileTable.skills, selector, params.enabled);
      const written = await writeUserConfig(config, { edits: [{ keyPath: 'skills.config', value: entries, mergeStrategy: 'replace' }], versionOf: layerVersion });
      app.runtime.applyConfig(written.config);
      const toggles = skillToggles(written.config.sources.fileTable.skills);
      const effectiveEnabled = isSkillEnabled({ path: selector.path ?? '', name: selector.name ?? '' }, toggles);
      return { effectiveEnabled };
    },
    'hooks/list': async (params) => ({
      data: await Promise.all(
        cwdsOf(app, params.cwds).map(async (cwd) => {
          const set = await discoverHooks(app.runtime.config, cwd);
          return { cwd: set.cwd, hooks: set.hooks.map(projectHookEntry), warnings: set.warnings, errors: [] };
        }),
      ),
    }),
    'app/list': () => ({ data: [], nextCursor: null }),
    'collaborationMode/list': () => ({
      data: [
        { name: 'Plan', mode: 'plan', model: null, reasoning_effort: 'medium' },
        { name: 'Default', mode: 'default', model: null, reasoning_effort: null },
      ],
    }),
    'experimentalFeature/list': () => ({ data: [], nextCursor: null }),
  };
}
