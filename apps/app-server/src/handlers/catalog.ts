/**
 * Handlers of the start-up lists (docs/app-server.md "Methods served"): `skills/list` and
 * `hooks/list` (real discovery from the home and the workspace; empty when there is nothing),
 * `app/list` (ChatGPT apps need ChatGPT auth: always empty), `collaborationMode/list` (the two
 * presets, experimental) and `experimentalFeature/list` (Deputy has no feature flags: empty).
 */
import path from 'node:path';
import type { AppContext } from '../app-context.js';
import { discoverHooks } from '../discovery/hooks.js';
import { discoverSkills } from '../discovery/skills.js';
import type { Handlers } from './types.js';

function cwdsOf(app: AppContext, cwds: string[] | undefined): string[] {
  return cwds && cwds.length > 0 ? cwds.map((c) => path.resolve(app.cwd, c)) : [app.cwd];
}

/** The handlers of this area. */
export function catalogHandlers(app: AppContext): Handlers {
  return {
    'skills/list': async (params) => ({
      data: await Promise.all(cwdsOf(app, params.cwds).map((cwd) => discoverSkills(app.runtime.home, cwd))),
    }),
    'hooks/list': async (params) => ({
      data: await Promise.all(cwdsOf(app, params.cwds).map((cwd) => discoverHooks(app.runtime.config, cwd))),
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
