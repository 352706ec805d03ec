/*
 * malloc-trim.node: gives the C heap's free pages back to the system, for a server that has
 * just settled after a burst (apps/app-server/src/idle-gc.ts). Node's buffers, the HTTP
 * parser's reads and V8's external memory come from glibc's malloc; once they are freed, glibc
 * keeps the pages (it returns only a free block at the very top of its heap), so a burst that
 * grew the heap to 50 MiB leaves the process 40 MiB larger for good although that memory is
 * free (docs/performance.md "Freed memory back to the system"). malloc_trim(0) releases every
 * free page of every arena, wherever it lies.
 *
 *   trim() -> true when memory was released, false when there was none or the C library has no
 *     malloc_trim (a libc other than glibc: musl gives free pages back by itself)
 *
 * Built by scripts/build-native.mjs; Linux only. Node-API only, so one build serves every Node
 * version.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <stdbool.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#ifdef __GLIBC__
  released = malloc_trim(0) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, released, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  return exports;
}
