/**
 * When the engine's native addons must be there (packages/engine/native/, built by
 * scripts/build-native.mjs): `pnpm build` compiles them on Linux wherever it finds the C compiler
 * it uses (`$CC`, else `cc`), so a test that needs one runs where that compiler is on PATH.
 */
import fs from 'node:fs';
import path from 'node:path';

/** True when the compiler scripts/build-native.mjs uses (`$CC`, else `cc`) is on PATH. */
export const hasCCompiler: boolean = (process.env.PATH ?? '')
  .split(':')
  .some((dir) => dir !== '' && fs.existsSync(path.join(dir, process.env.CC || 'cc')));

/** True on Linux with glibc, the one C library whose heap `malloc-trim.node` trims. */
export const isGlibc: boolean =
  process.platform === 'linux' &&
  typeof (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime === 'string';
