/**
 * The command line of `deputy app-server` / `deputy-app-server`: repeatable `--listen URL`
 * (`stdio://` by default, `ws://IP:PORT`, `unix://`, `unix://PATH`, `off`), the reference's
 * WebSocket auth flags (`--ws-auth …`), `-c key=value` config overrides and `--profile`. It only
 * parses and checks combinations; it reads no files and opens nothing. Errors are
 * `UsageError`s whose message is fit for the terminal.
 */
import { parseArgs } from 'node:util';
import type { WsAuthFlags } from '@deputy/rpc/core';

/** What the command line asks for. */
export interface AppServerArgs {
  /** `--listen` values in order; `['stdio://']` when none was given. */
  listen: string[];
  /** The `--ws-*` flags as given (validated later by `resolveWsAuthFlags`). */
  wsAuth: WsAuthFlags;
  /** `-c key=value` overrides in command-line order. */
  configOverrides: string[];
  /** `--profile`, if given. */
  profile?: string;
  /** `--trace FILE`, if given (else `DEPUTY_TRACE`). */
  trace?: string;
  /** `--help` was given. */
  help: boolean;
  /** `--version` was given. */
  version: boolean;
}

/** A command line that cannot be run. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The `--help` text. */
export const USAGE = `Usage: deputy app-server [options]

Serves the Codex-compatible app-server protocol (JSON-RPC) for IDEs, the Codex TUI (--remote) and scripts.

Options:
  --listen <URL>                    where to listen; repeatable (default stdio://)
                                    stdio://            NDJSON on stdin/stdout
                                    ws://IP:PORT        WebSocket (GET /readyz and /healthz on the same port)
                                    unix://             WebSocket over <home>/app-server-control/app-server-control.sock
                                    unix://PATH         WebSocket over the Unix socket PATH
                                    off                 no listener
  --ws-auth <MODE>                  capability-token | signed-bearer-token, checked on every ws:// and unix://
                                    listener (required for a non-loopback ws bind)
  --ws-token-file <PATH>            capability token file (absolute path)
  --ws-token-sha256 <HEX>           SHA-256 of the capability token, instead of the file
  --ws-shared-secret-file <PATH>    HS256 secret for signed bearer tokens (absolute path, >= 32 bytes)
  --ws-issuer <ISS>                 expected JWT issuer
  --ws-audience <AUD>               expected JWT audience
  --ws-max-clock-skew-seconds <N>   allowed clock skew for exp/nbf (default 30)
  -c, --config <key=value>          override a config.toml key (repeatable)
  -p, --profile <NAME>              use [profiles.NAME] of config.toml
  --trace <FILE>                    append every JSON-RPC message in and out to FILE (JSON lines, secrets
                                    redacted); also DEPUTY_TRACE=FILE. Off by default
  -h, --help                        show this help
  -V, --version                     print the version

The home directory is $DEPUTY_HOME (default ~/.deputy). Logs go to stderr; set DEPUTY_LOG=debug|info|warn|error.
`;

function parseSkew(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--ws-max-clock-skew-seconds must be a non-negative integer, got \`${raw}\``);
  return n;
}

/** Parses the arguments after the command name. Throws `UsageError`. */
export function parseAppServerArgs(argv: readonly string[]): AppServerArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      strict: true,
      options: {
        listen: { type: 'string', multiple: true },
        'ws-auth': { type: 'string' },
        'ws-token-file': { type: 'string' },
        'ws-token-sha256': { type: 'string' },
        'ws-shared-secret-file': { type: 'string' },
        'ws-issuer': { type: 'string' },
        'ws-audience': { type: 'string' },
        'ws-max-clock-skew-seconds': { type: 'string' },
        config: { type: 'string', short: 'c', multiple: true },
        profile: { type: 'string', short: 'p' },
        trace: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const v = parsed.values;
  const listen = v.listen && v.listen.length > 0 ? v.listen : ['stdio://'];
  const stdioCount = listen.filter((url) => url === 'stdio://').length;
  if (stdioCount > 1) throw new UsageError('`--listen stdio://` can be given only once');
  if (listen.includes('off') && listen.length > 1) throw new UsageError('`--listen off` cannot be combined with other listeners');
  return {
    listen,
    wsAuth: {
      wsAuth: v['ws-auth'],
      wsTokenFile: v['ws-token-file'],
      wsTokenSha256: v['ws-token-sha256'],
      wsSharedSecretFile: v['ws-shared-secret-file'],
      wsIssuer: v['ws-issuer'],
      wsAudience: v['ws-audience'],
      wsMaxClockSkewSeconds: parseSkew(v['ws-max-clock-skew-seconds']),
    },
    configOverrides: v.config ?? [],
    profile: v.profile,
    trace: v.trace,
    help: v.help === true,
    version: v.version === true,
  };
}
