/**
 * The seccomp filter of a network-off sandbox, as a classic BPF program for bubblewrap's
 * `--seccomp FD`. A new network namespace already cuts TCP, UDP and abstract Unix sockets off
 * from the host, but a Unix socket bound to a path (an app-server control socket, a tmux server,
 * an SSH agent, docker.sock) is reached through the filesystem, whatever the namespace. So the
 * filter makes `socket(AF_UNIX, …)` fail with EPERM (`socketpair`, which has no address and only
 * connects a process to itself, stays allowed: pipes between tools use it), refuses io_uring
 * (whose socket and connect operations would bypass the filter), and refuses every system call
 * of another ABI (the i386 `socketcall` of an x86-64 kernel, x32 calls), which it cannot check.
 * The reference (codex-rs/linux-sandbox) installs a filter for the same purpose.
 *
 * The program is kept in a file in a private directory of the user (mode 0700) and handed to bwrap
 * on file descriptor 3 by a `/bin/sh` wrapper, because commands on a pseudo-terminal are spawned
 * by node-pty, which cannot pass extra descriptors. That directory is masked inside every
 * sandbox, so no sandboxed command can rewrite the filter of the next one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The descriptor bwrap reads the program from. */
export const SECCOMP_FD = 3;

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const AF_UNIX = 1;
/** Offsets in `struct seccomp_data`: nr, arch, then args[0] (low 32 bits on little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
/** The x32 ABI's flag in the system call number on x86-64 kernels. */
const X32_SYSCALL_BIT = 0x40000000;

interface ArchSyscalls {
  audit: number;
  socket: number;
  ioUring: readonly number[];
  /** Whether numbers at or above X32_SYSCALL_BIT are another ABI. */
  hasX32: boolean;
}

/** The architectures Deputy's sandbox runs on (Linux, as Node names them). */
const ARCHES: Readonly<Record<string, ArchSyscalls>> = {
  x64: { audit: 0xc000003e, socket: 41, ioUring: [425, 426, 427], hasX32: true },
  arm64: { audit: 0xc00000b7, socket: 198, ioUring: [425, 426, 427], hasX32: false },
};

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for `arch` (Node's `process.arch`), or null for an architecture it does not know. */
export function networkOffFilter(arch: string = process.arch): Buffer | null {
  const sys = ARCHES[arch];
  if (sys === undefined) return null;
  const deny: Insn = [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM];
  const allow: Insn = [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW];
  // Jump offsets are relative to the next instruction; the tail is [..., deny, allow].
  const body: Insn[] = [];
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  const checks: Insn[] = [];
  if (sys.hasX32) checks.push([BPF_JGE_K, 0xff, 0, X32_SYSCALL_BIT]);
  for (const nr of sys.ioUring) checks.push([BPF_JEQ_K, 0xff, 0, nr]);
  // socket(): load args[0] and deny only AF_UNIX.
  const socketCheck: Insn[] = [
    [BPF_JEQ_K, 0, 2, sys.socket],
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    [BPF_JEQ_K, 0xff, 0, AF_UNIX],
  ];
  const program: Insn[] = [
    [BPF_LD_W_ABS, 0, 0, OFFSET_ARCH],
    [BPF_JEQ_K, 1, 0, sys.audit],
    deny,
    ...body,
    ...checks,
    ...socketCheck,
    allow,
    deny,
  ];
  // Resolve the 0xff placeholders: a jump to the final `deny`.
  const denyIndex = program.length - 1;
  const resolved = program.map(([code, jt, jf, k], index): Insn => {
    const toDeny = denyIndex - (index + 1);
    return [code, jt === 0xff ? toDeny : jt, jf === 0xff ? toDeny : jf, k];
  });
  const out = Buffer.alloc(resolved.length * 8);
  resolved.forEach(([code, jt, jf, k], index) => {
    out.writeUInt16LE(code, index * 8);
    out.writeUInt8(jt, index * 8 + 2);
    out.writeUInt8(jf, index * 8 + 3);
    out.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return out;
}

/** Where the filter is kept: a private directory and the program file in it. */
export interface SeccompFilterFile {
  dir: string;
  file: string;
}

let checked: SeccompFilterFile | null = null;

/**
 * The file holding the network-off filter: `<tmpdir>/deputy-seccomp-<uid>/network-off-<arch>-<hash>.bpf`,
 * shared by every Deputy process of the user. The directory must be the user's own, not a
 * symlink, and closed to others (0700), or this throws; the file's bytes are compared with the
 * program and written again (temp file and rename) when they differ. Checked once per process,
 * and again if something removed the file. Null on an architecture the filter does not cover.
 */
export function networkOffFilterFile(arch: string = process.arch): SeccompFilterFile | null {
  const program = networkOffFilter(arch);
  if (program === null) return null;
  if (checked !== null && fs.existsSync(checked.file)) return checked;
  const uid = process.getuid?.() ?? 0;
  const dir = path.join(os.tmpdir(), `deputy-seccomp-${uid}`);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stats = fs.lstatSync(dir);
  if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o077) !== 0) {
    throw new Error(`${dir} must be a directory owned by uid ${uid} with mode 0700; remove it and try again`);
  }
  const hash = createHash('sha256').update(program).digest('hex').slice(0, 12);
  const file = path.join(dir, `network-off-${arch}-${hash}.bpf`);
  let current: Buffer | null = null;
  try {
    current = fs.readFileSync(file);
  } catch {
    // not written yet
  }
  if (current === null || !current.equals(program)) {
    const temp = `${file}.${process.pid}.tmp`;
    fs.rmSync(temp, { force: true });
    fs.writeFileSync(temp, program, { mode: 0o400 });
    fs.renameSync(temp, file);
  }
  checked = { dir, file };
  return checked;
}

/**
 * Wraps a bwrap argv so bwrap finds the program on {@link SECCOMP_FD}: `/bin/sh -c 'exec "$@"
 * 3<"$0"' FILE bwrap …`. The shell replaces itself with bwrap, so the process tree is unchanged.
 */
export function withSeccompFd(bwrapArgv: readonly string[], filterFile: string): string[] {
  return ['/bin/sh', '-c', `exec "$@" ${SECCOMP_FD}<"$0"`, filterFile, ...bwrapArgv];
}
