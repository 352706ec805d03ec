/*
 * vfork-spawn.node: starts a command with vfork(2) + exec(2) instead of fork(2) + exec(2), for
 * the spawn helper (packages/engine/src/exec/spawn-helper.ts). The child shares the caller's
 * memory until it execs, so the caller's page tables are neither copied nor torn down again by
 * exec; on a small VM that is most of what starting a short command costs (docs/performance.md
 * "Starting commands without a fork"). This is what posix_spawn(3) does; glibc's posix_spawn
 * itself is not used because it leaves the command with glibc's two internal signals (32 and
 * 33) ignored, which a program that is not glibc-based would inherit.
 *
 * The child is set up as libuv sets up a detached child with piped stdio, and more strictly: a
 * session (and process group) of its own, every signal's disposition back to the default (1 to
 * 64, where libuv resets 1 to 31) and none blocked, stdin on a pipe or /dev/null, stdout and
 * stderr on pipes, every other descriptor closed (libuv passes on the ones the caller inherited
 * without close-on-exec), the given working directory and environment. Exec failures, including
 * a working directory that does not exist, come back as the errno of the call.
 *
 * The vfork child runs only system calls (no allocation, no locks, no signal handler: every
 * signal is blocked across the vfork and the child resets the handlers before it unblocks them).
 *
 *   spawn(file, argv, envp, cwd, stdinPipe) -> [pid, stdinFd (or -1), stdoutFd, stderrFd]
 *     throws an Error with `errno` (negative, as libuv reports it) when the command cannot start
 *   reap(pids) -> [[pid, exitCode or null, signal number or 0], ...] for those that ended
 *     (waitpid with WNOHANG on these pids only: other children are left to their owners)
 *
 * Built by scripts/build-native.mjs; Linux only. Node-API only, so one build serves every Node
 * version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The kernel's sigaction and signal set (64 signals), for the raw system calls. */
struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  uint64_t mask;
};
#define KERNEL_NSIG 64

static void set_kernel_mask(const uint64_t *mask, uint64_t *old) {
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, old, sizeof(uint64_t));
}

/* The vfork child: system calls only, then exec. Returns (and the child exits) only on failure. */
static int child_exec(const char *file, char **argv, char **envp, const char *cwd, int in, int out, int err) {
  struct kernel_sigaction dfl = {SIG_DFL, 0, NULL, 0};
  for (int sig = 1; sig <= KERNEL_NSIG; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(uint64_t));
  }
  if (setsid() < 0) return errno;
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) return errno;
  /* Everything but the three: close_range (Linux 5.9), else one by one. */
  if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 1024); fd++) close((int)fd);
  }
  if (chdir(cwd) != 0) return errno;
  uint64_t none = 0;
  set_kernel_mask(&none, NULL);
  execve(file, argv, envp);
  return errno;
}

static char *get_string(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text == NULL) return NULL;
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static void free_strings(char **list) {
  if (list == NULL) return;
  for (char **p = list; *p != NULL; p++) free(*p);
  free(list);
}

/* A NULL-terminated copy of an array of strings, or NULL. */
static char **get_strings(napi_env env, napi_value array) {
  uint32_t count = 0;
  if (napi_get_array_length(env, array, &count) != napi_ok) return NULL;
  char **list = calloc((size_t)count + 1, sizeof(char *));
  if (list == NULL) return NULL;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    list[i] = get_string(env, item);
    if (list[i] == NULL) {
      free_strings(list);
      return NULL;
    }
  }
  return list;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static napi_value throw_errno(napi_env env, int code) {
  napi_value error, message, number;
  napi_create_string_utf8(env, strerror(code), NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_create_int32(env, -code, &number);
  napi_set_named_property(env, error, "errno", number);
  napi_throw(env, error);
  return NULL;
}

static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value args[5];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "spawn(file, argv, envp, cwd, stdinPipe)");
    return NULL;
  }
  bool stdin_pipe = false;
  napi_get_value_bool(env, args[4], &stdin_pipe);
  char *file = get_string(env, args[0]);
  char **argv = get_strings(env, args[1]);
  char **envp = get_strings(env, args[2]);
  char *cwd = get_string(env, args[3]);
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  int code = 0;
  pid_t pid = -1;
  if (file == NULL || argv == NULL || envp == NULL || cwd == NULL) code = EINVAL;
  if (code == 0) {
    if (stdin_pipe) {
      if (pipe2(in, O_CLOEXEC) != 0) code = errno;
    } else {
      in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (in[0] < 0) code = errno;
    }
  }
  if (code == 0 && pipe2(out, O_CLOEXEC) != 0) code = errno;
  if (code == 0 && pipe2(err, O_CLOEXEC) != 0) code = errno;
  if (code == 0) {
    /* Set by the child (which shares this memory) when it could not exec. */
    volatile int child_error = 0;
    uint64_t all = ~(uint64_t)0, old = 0;
    set_kernel_mask(&all, &old);
    pid = vfork();
    if (pid == 0) {
      child_error = child_exec(file, argv, envp, cwd, in[0], out[1], err[1]);
      _exit(127);
    }
    int vfork_error = pid < 0 ? errno : 0;
    set_kernel_mask(&old, NULL);
    if (vfork_error != 0) code = vfork_error;
    else if (child_error != 0) {
      code = child_error;
      waitpid(pid, NULL, 0);
      pid = -1;
    }
  }
  /* The command's ends belong to the command now (or to nobody, when it did not start). */
  close_fd(&in[0]);
  close_fd(&out[1]);
  close_fd(&err[1]);
  free(file);
  free(cwd);
  free_strings(argv);
  free_strings(envp);
  if (code != 0) {
    close_fd(&in[1]);
    close_fd(&out[0]);
    close_fd(&err[0]);
    return throw_errno(env, code);
  }
  napi_value result, item;
  int values[4] = {(int)pid, in[1], out[0], err[0]};
  napi_create_array_with_length(env, 4, &result);
  for (uint32_t i = 0; i < 4; i++) {
    napi_create_int32(env, values[i], &item);
    napi_set_element(env, result, i, item);
  }
  return result;
}

static napi_value Reap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value args[1], result;
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  napi_create_array(env, &result);
  uint32_t count = 0, found = 0;
  if (argc < 1 || napi_get_array_length(env, args[0], &count) != napi_ok) return result;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    int32_t pid = 0;
    int status = 0;
    napi_get_element(env, args[0], i, &item);
    if (napi_get_value_int32(env, item, &pid) != napi_ok || pid <= 0) continue;
    if (waitpid(pid, &status, WNOHANG) != pid) continue;
    napi_value entry, value;
    napi_create_array_with_length(env, 3, &entry);
    napi_create_int32(env, pid, &value);
    napi_set_element(env, entry, 0, value);
    if (WIFEXITED(status)) napi_create_int32(env, WEXITSTATUS(status), &value);
    else napi_get_null(env, &value);
    napi_set_element(env, entry, 1, value);
    napi_create_int32(env, WIFSIGNALED(status) ? WTERMSIG(status) : 0, &value);
    napi_set_element(env, entry, 2, value);
    napi_set_element(env, result, found++, entry);
  }
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, Spawn, NULL, &fn);
  napi_set_named_property(env, exports, "spawn", fn);
  napi_create_function(env, "reap", NAPI_AUTO_LENGTH, Reap, NULL, &fn);
  napi_set_named_property(env, exports, "reap", fn);
  return exports;
}
