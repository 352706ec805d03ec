/**
 * `deputy acp [-c key=value]… [-p PROFILE]`: the ACP agent on stdio. Stdout carries ACP frames
 * only; logs go to stderr. Ends with exit 0 when stdin closes (running turns are interrupted
 * and recorded as such) or on SIGTERM.
 */
import { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import * as acp from '@agentclientprotocol/sdk';
import { createLogger } from './log.js';
import { lenientInput, startAgent } from './server.js';

/** The `--help` text. */
export const USAGE = `Usage: deputy acp [options]

Runs Deputy as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim).

Options:
  -c, --config <k=v>    override a config.toml key (dotted path, TOML value); repeatable
  -p, --profile <name>  use a [profiles.<name>] table of config.toml
  -h, --help            show this help
`;

/** Runs the agent until stdin ends; resolves with the exit code. */
export async function runAcpServer(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: 'string', short: 'c', multiple: true, default: [] },
        profile: { type: 'string', short: 'p' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`deputy acp: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const log = createLogger(process.env.DEPUTY_LOG);
  const engine = await import('@deputy/engine');
  let config;
  try {
    config = await engine.loadConfig({ home: engine.resolveHome(process.env), cwd: process.cwd(), overrides: values.config, profile: values.profile, env: process.env });
  } catch (error) {
    process.stderr.write(`deputy acp: ${(error as Error).message}\n`);
    return 2;
  }
  for (const warning of config.warnings) log.warn(warning);
  const wire = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const agent = startAgent(
    { writable: wire.writable, readable: wire.readable.pipeThrough(lenientInput()) },
    {
      engine,
      config,
      log,
      openManager: async (approvals) => engine.ThreadManager.open(await engine.EngineRuntime.create({ config, approvals, source: 'vscode' })),
    },
  );
  const stop = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await Promise.race([agent.closed, stop]);
  await agent.shutdown();
  log.debug('stdin closed; exiting');
  return 0;
}
