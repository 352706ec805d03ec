/** Shared vitest settings: workspace packages resolve to their TypeScript sources, so unit tests need no build. */
import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Maps each workspace package name (and subpath export) to its source entry point. Subpaths come
 * before their package: an alias also matches `<name>/…`, and the first match wins.
 */
export const workspaceAlias: Record<string, string> = {
  '@deputy/protocol/jsonrpc': `${root}packages/protocol/src/jsonrpc.ts`,
  '@deputy/protocol/handshake': `${root}packages/protocol/src/app-server/handshake.ts`,
  '@deputy/protocol/mcp-tools': `${root}packages/protocol/src/mcp-tools.ts`,
  '@deputy/protocol/core': `${root}packages/protocol/src/core/index.ts`,
  '@deputy/rpc/core': `${root}packages/rpc/src/core.ts`,
  '@deputy/protocol': `${root}packages/protocol/src/index.ts`,
  '@deputy/engine/facts': `${root}packages/engine/src/facts.ts`,
  '@deputy/engine/native-addon': `${root}packages/engine/src/util/native-addon.ts`,
  '@deputy/engine': `${root}packages/engine/src/index.ts`,
  '@deputy/test-support': `${root}packages/test-support/src/index.ts`,
  '@deputy/demo-model': `${root}packages/demo-model/src/index.ts`,
  '@deputy/rpc': `${root}packages/rpc/src/index.ts`,
  '@deputy/client': `${root}packages/client/src/index.ts`,
  '@deputy/mcp-server': `${root}apps/mcp-server/src/index.ts`,
  '@deputy/app-server': `${root}apps/app-server/src/index.ts`,
  '@deputy/acp-server': `${root}apps/acp-server/src/index.ts`,
};

/** The project config every package and app uses. */
export function deputyProject(extra: { testTimeout?: number } = {}) {
  return defineProject({
    resolve: { alias: workspaceAlias },
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: extra.testTimeout ?? 30_000,
      hookTimeout: 30_000,
    },
  });
}
