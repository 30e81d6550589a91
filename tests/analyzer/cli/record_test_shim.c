/* Test stand-in for libclprof.so (LD_PRELOAD): at load time it writes a minimal clprof
 * trace where the real shim would (CLPROF_OUTPUT, %p = pid; a process that is not
 * CLPROF_ROOT_PID writes NAME.<pid>.EXT), holding CLPROF_TEST_LAUNCHES launch records and
 * the environment it saw, so that tests can check what `clprof record` set up. With
 * CLPROF_TEST_NO_TRACE=1 it writes nothing, as the real shim in a program that makes no
 * OpenCL call. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void expand(const char* pattern, char* out, size_t n, int pid) {
  size_t o = 0;
  for (const char* p = pattern; *p && o + 16 < n; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      o += (size_t)snprintf(out + o, n - o, "%d", pid);
      ++p;
    } else {
      out[o++] = *p;
    }
  }
  out[o] = 0;
}

__attribute__((constructor)) static void write_trace(void) {
  const char* output = getenv("CLPROF_OUTPUT");
  const char* root = getenv("CLPROF_ROOT_PID");
  const char* preload = getenv("LD_PRELOAD");
  const char* n_env = getenv("CLPROF_TEST_LAUNCHES");
  if (!output || !*output) return;
  if (getenv("CLPROF_TEST_NO_TRACE")) return;
  const int pid = (int)getpid();
  const int is_root = root && atoi(root) == pid;
  char path[4096];
  if (strstr(output, "%p") || is_root) {
    expand(output, path, sizeof path, pid);
  } else {
    const char* dot = strrchr(output, '.');
    const char* slash = strrchr(output, '/');
    if (dot && (!slash || dot > slash))
      snprintf(path, sizeof path, "%.*s.%d%s", (int)(dot - output), output, pid, dot);
    else
      snprintf(path, sizeof path, "%s.%d", output, pid);
  }
  FILE* f = fopen(path, "w");
  if (!f) return;
  const int n = n_env ? atoi(n_env) : 2;
  fprintf(f,
          "{\"format\":\"clprof-trace\",\"version\":1,\"header\":{\"pid\":%d,\"settings\":"
          "{\"CLPROF_ROOT_PID\":\"%s\",\"LD_PRELOAD\":\"%s\"}},\"records\":[\n",
          pid, root ? root : "", preload ? preload : "");
  for (int i = 0; i < n; ++i)
    fprintf(
        f,
        "{\"type\":\"launch\",\"seq\":%d,\"kernel\":\"k\",\"gws\":[1],\"device_ns\":[0,0,0,1]},\n",
        i + 1);
  fprintf(f, "{\"type\":\"end\",\"host_ns\":1}]}\n");
  fclose(f);
}
