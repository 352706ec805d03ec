// After `tsc -b`: marks the built CLI entry points executable (tsc does not keep the bit), builds
// the engine's native addons where it can (scripts/build-native.mjs), and bundles the two
// servers and the CLI (scripts/bundle.mjs).
import { chmodSync, existsSync } from 'node:fs';
import { bundle, BUNDLES } from './bundle.mjs';
import { buildNativeAddons } from './build-native.mjs';

for (const bin of ['apps/cli/dist/deputy.cjs', 'apps/cli/dist/deputy.js', 'apps/mcp-server/dist/main.js', 'apps/app-server/dist/main.js']) {
  if (existsSync(bin)) chmodSync(bin, 0o755);
}
buildNativeAddons();
for (const target of BUNDLES) await bundle(target);
