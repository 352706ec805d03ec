/**
 * OS errors in the reference's words: Rust's `io::Error` prints `<strerror> (os error <n>)` with
 * glibc's texts, which libuv words differently for several codes. Used wherever the app-server
 * reports a failed system call (fs/*, command/exec).
 */
import { getSystemErrorMap } from 'node:util';

/** glibc's `strerror` texts, which the reference reports; libuv words several differently. */
const STRERROR: Readonly<Record<string, string>> = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  EIO: 'Input/output error',
  EBADF: 'Bad file descriptor',
  EACCES: 'Permission denied',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  EXDEV: 'Invalid cross-device link',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  EMFILE: 'Too many open files',
  ENFILE: 'Too many open files in system',
  ETXTBSY: 'Text file busy',
  EFBIG: 'File too large',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EMLINK: 'Too many links',
  ENAMETOOLONG: 'File name too long',
  ENOTEMPTY: 'Directory not empty',
  ELOOP: 'Too many levels of symbolic links',
  ENOTSUP: 'Operation not supported',
  EOPNOTSUPP: 'Operation not supported',
  EDQUOT: 'Disk quota exceeded',
};

/** The `code` of a Node system error (`ENOENT`, …), if it has one. */
export function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The text of error number `errno` (either sign), or `fallback` when the OS does not know it. */
export function errnoText(errno: number, fallback: string): string {
  const entry = getSystemErrorMap().get(-Math.abs(errno));
  if (!entry) return fallback;
  const [code, uv] = entry;
  const text = STRERROR[code] ?? `${uv.charAt(0).toUpperCase()}${uv.slice(1)}`;
  return `${text} (os error ${Math.abs(errno)})`;
}

/** The text of a failed system call; anything that is not a system error keeps its message. */
export function osErrorText(e: unknown): string {
  const { errno } = (e ?? {}) as { errno?: unknown };
  if (typeof errno === 'number') return errnoText(errno, e instanceof Error ? e.message : String(e));
  return e instanceof Error ? e.message : String(e);
}
