// Marks the built CLI entry points executable after `tsc -b` (tsc does not keep the bit).
import { chmodSync, existsSync } from 'node:fs';

for (const bin of ['apps/cli/dist/deputy.js', 'apps/mcp-server/dist/main.js', 'apps/app-server/dist/main.js']) {
  if (existsSync(bin)) chmodSync(bin, 0o755);
}
