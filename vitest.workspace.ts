/** Lists the workspace's projects; each runs its own test/**\/*.test.ts with source-level imports. */
export default ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts'];
