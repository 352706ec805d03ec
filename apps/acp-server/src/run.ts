/**
 * `deputy acp [-c key=value]… [-p PROFILE]`: the ACP agent on stdio. Stdout carries ACP frames
 * only; logs go to stderr. Ends with exit 0 when stdin closes (running turns are interrupted
 * and recorded as such) or on SIGTERM.
 */
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import * as acp from '@agentclientprotocol/sdk';
import { CONFIG_ARGS_USAGE, configArgOptions } from '@deputy/engine/facts';
import { createLogger } from './log.js';
import { lenientInput, startAgent } from './server.js';

/** The `--help` text. */
export const USAGE = `Usage: deputy acp [options]

Runs Deputy as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains, Neovim).

Options:
${CONFIG_ARGS_USAGE}      --login           read an OpenAI API key from the terminal (or stdin) and store it in
                        auth.json in the Deputy home, then exit
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
        ...configArgOptions(),
        login: { type: 'boolean', default: false },
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
  const home = engine.resolveHome(process.env);
  if (values.login) return login(engine, home);
  const load = () => engine.loadConfig({ home, cwd: process.cwd(), overrides: values.config, profile: values.profile, env: process.env });
  let config;
  try {
    config = await load();
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
      reloadConfig: load,
      openManager: async (approvals, editorFiles, current) => engine.ThreadManager.open(await engine.EngineRuntime.create({ config: current, approvals, editorFiles, source: 'vscode' })),
    },
  );
  const stop = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  await Promise.race([agent.closed, stop]);
  await agent.shutdown();
  log.debug('stdin closed; exiting');
  return 0;
}

/**
 * `deputy acp --login` (the terminal authentication method): reads one line, the key, without
 * echo when stdin is a terminal, and stores it in auth.json (mode 0600). Exit 0 when stored, 1
 * when no key was entered.
 */
async function login(engine: typeof import('@deputy/engine'), home: string): Promise<number> {
  process.stderr.write('OpenAI API key: ');
  const key = (await readSecretLine()).trim();
  process.stderr.write('\n');
  if (key === '') {
    process.stderr.write('deputy acp: no key entered; nothing stored\n');
    return 1;
  }
  await engine.writeStoredApiKey(home, key);
  process.stderr.write(`deputy acp: the key is stored in ${path.join(home, 'auth.json')}\n`);
  return 0;
}

/** One line of stdin; on a terminal, read in raw mode so the key is not echoed. */
function readSecretLine(): Promise<string> {
  const input = process.stdin;
  const tty = input.isTTY === true;
  if (tty) input.setRawMode(true);
  input.setEncoding('utf8');
  return new Promise((resolve) => {
    let line = '';
    const done = () => {
      input.off('data', onData);
      input.off('end', done);
      if (tty) input.setRawMode(false);
      input.pause();
      resolve(line);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') {
          line = '';
          return done();
        }
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    input.on('data', onData);
    input.once('end', done);
  });
}
