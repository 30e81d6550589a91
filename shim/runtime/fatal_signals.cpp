#include "runtime/fatal_signals.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace clprof::shim {
namespace {

// Code that sanitizer runtimes may reach through the interposed sigaction before their own
// set-up is done must not be instrumented (sanitizer builds of the shim only).
#define CLPROF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))

constexpr int kCount = sizeof kCaughtSignals / sizeof kCaughtSignals[0];
constexpr std::size_t kWords =
    (sizeof(struct sigaction) + sizeof(unsigned long) - 1) / sizeof(unsigned long);

// The app's disposition of one signal, as it would read it back: a struct sigaction in
// words, under a sequence count (odd while it changes), so the handler reads it without
// a lock.
struct AppDisposition {
  std::atomic<unsigned> seq{0};
  std::atomic<unsigned long> words[kWords] = {};
};

struct Caught {
  std::atomic<bool> active{false};  // the kernel holds the shim's handler (or SIG_IGN)
  AppDisposition app;
};

Caught g_caught[kCount];
// Changes to the dispositions, taken with every signal blocked (so a handler never finds
// its own thread holding it) and held across fork.
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
// The process whose memory the table describes: a vfork child (another pid, the same
// memory) must change nothing in it.
std::atomic<long> g_table_pid{0};
std::atomic<void (*)(int)> g_end_trace{nullptr};

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
// libc's sigaction, found once (a plain pointer read with atomic builtins: sanitizer
// runtimes may get here before anything else in the shim is set up).
SigactionFn g_real_sigaction = nullptr;

CLPROF_NO_SANITIZE SigactionFn real_sigaction_fn() {
  SigactionFn fn = __atomic_load_n(&g_real_sigaction, __ATOMIC_ACQUIRE);
  if (!fn) {
    fn = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
    __atomic_store_n(&g_real_sigaction, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

CLPROF_NO_SANITIZE int index_of(int sig) {
  for (int i = 0; i < kCount; ++i)
    if (kCaughtSignals[i].number == sig) return i;
  return -1;
}

bool is_fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

struct sigaction read_app(const Caught& c) {
  unsigned long words[kWords];
  for (;;) {
    const unsigned before = c.app.seq.load(std::memory_order_acquire);
    if (before & 1) {
      sched_yield();  // another thread is changing it (with signals blocked: it goes on)
      continue;
    }
    for (std::size_t w = 0; w < kWords; ++w)
      words[w] = c.app.words[w].load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (c.app.seq.load(std::memory_order_relaxed) == before) break;
  }
  struct sigaction sa;
  std::memcpy(static_cast<void*>(&sa), words, sizeof sa);
  return sa;
}

// Under g_lock.
void write_app(Caught& c, const struct sigaction& sa) {
  unsigned long words[kWords] = {};
  std::memcpy(words, static_cast<const void*>(&sa), sizeof sa);
  const unsigned seq = c.app.seq.load(std::memory_order_relaxed);
  c.app.seq.store(seq + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  for (std::size_t w = 0; w < kWords; ++w)
    c.app.words[w].store(words[w], std::memory_order_relaxed);
  c.app.seq.store(seq + 2, std::memory_order_release);
}

// g_lock, with every signal blocked on this thread while held.
class ChangeLock {
 public:
  ChangeLock() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
    while (g_lock.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~ChangeLock() {
    g_lock.clear(std::memory_order_release);
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  ChangeLock(const ChangeLock&) = delete;
  ChangeLock& operator=(const ChangeLock&) = delete;

 private:
  sigset_t saved_;
};

bool is_handler(const struct sigaction& sa) {
  return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

void on_signal(int sig, siginfo_t* info, void* context);

bool is_ours(const struct sigaction& k) {
  return (k.sa_flags & SA_SIGINFO) && k.sa_sigaction == on_signal;
}

// What the kernel gets for the app's disposition `app`: SIG_IGN as is; otherwise the
// shim's handler, with the flags and mask of the app's handler (so the kernel blocks
// and restarts as it would for it), or, for SIG_DFL, on the alternate stack where the
// thread has one (a stack overflow can still write the trace).
int install_kernel(int sig, const struct sigaction& app) {
  if (app.sa_handler == SIG_IGN) return real_sigaction(sig, &app, nullptr);
  struct sigaction k;
  std::memset(static_cast<void*>(&k), 0, sizeof k);
  k.sa_sigaction = on_signal;
  if (is_handler(app)) {
    k.sa_flags = SA_SIGINFO | (app.sa_flags & (SA_ONSTACK | SA_RESTART | SA_NODEFER));
    k.sa_mask = app.sa_mask;
  } else {
    k.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&k.sa_mask);
  }
  return real_sigaction(sig, &k, nullptr);
}

bool in_table_process() {
  return g_table_pid.load(std::memory_order_relaxed) == static_cast<long>(getpid());
}

// The app's disposition becomes SIG_DFL (its handler had SA_RESETHAND).
void reset_to_default(int sig, Caught& c) {
  if (!in_table_process()) return;  // a vfork child: the kernel resets nothing either
  struct sigaction dfl;
  std::memset(static_cast<void*>(&dfl), 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ChangeLock lock;
  write_app(c, dfl);
  install_kernel(sig, dfl);
}

void end_trace_for(int sig) {
  if (void (*end)(int) = g_end_trace.load(std::memory_order_acquire)) end(sig);
}

// The kernel's handler for every caught signal (fatal_signals.hpp says what it does).
void on_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const int i = index_of(sig);
  if (i < 0) return;
  Caught& c = g_caught[i];
  const struct sigaction app = read_app(c);
  if (is_handler(app)) {
    if (app.sa_flags & SA_RESETHAND) reset_to_default(sig, c);
    errno = saved_errno;
    if (app.sa_flags & SA_SIGINFO) {
      app.sa_sigaction(sig, info, context);
    } else {
      app.sa_handler(sig);
    }
    // abort() raised it: once the handler returns, abort() sets SIG_DFL behind the
    // interposer's back and raises again, ending the process.
    if (sig == SIGABRT && info && info->si_code == SI_TKILL && info->si_pid == getpid()) {
      end_trace_for(sig);
    }
    errno = saved_errno;
    return;
  }
  const bool from_fault = info && info->si_code > 0 && is_fault_signal(sig);
  if (app.sa_handler == SIG_IGN && !from_fault) return;  // ignored since it was raised
  // The default action ends the process: the trace first.
  end_trace_for(sig);
  struct sigaction dfl;
  std::memset(static_cast<void*>(&dfl), 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  real_sigaction(sig, &dfl, nullptr);
  errno = saved_errno;
  // A fault happens again when its instruction runs again, now with the default action:
  // the core dump shows it as it would without the shim.
  if (from_fault) return;
  sigset_t just;
  sigemptyset(&just);
  sigaddset(&just, sig);
  pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
  raise(sig);
  errno = saved_errno;
}

}  // namespace

const char* caught_signal_name(int sig) {
  const int i = index_of(sig);
  return i < 0 ? "a signal" : kCaughtSignals[i].name;
}

CLPROF_NO_SANITIZE int real_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  const SigactionFn fn = real_sigaction_fn();
  if (!fn) {
    errno = ENOSYS;
    return -1;
  }
  return fn(sig, act, old);
}

void catch_fatal_signals(void (*end_trace)(int sig)) {
  if (!real_sigaction_fn()) return;
  g_end_trace.store(end_trace, std::memory_order_release);
  for (int i = 0; i < kCount; ++i) {
    ChangeLock lock;
    Caught& c = g_caught[i];
    if (c.active.load(std::memory_order_relaxed)) continue;
    g_table_pid.store(getpid(), std::memory_order_relaxed);
    struct sigaction current;
    std::memset(static_cast<void*>(&current), 0, sizeof current);
    if (real_sigaction(kCaughtSignals[i].number, nullptr, &current) != 0) continue;
    write_app(c, current);
    if (install_kernel(kCaughtSignals[i].number, current) == 0) c.active.store(true);
  }
}

void release_fatal_signals() {
  if (!in_table_process()) return;
  for (int i = 0; i < kCount; ++i) {
    ChangeLock lock;
    Caught& c = g_caught[i];
    if (!c.active.load(std::memory_order_relaxed)) continue;
    const struct sigaction app = read_app(c);
    real_sigaction(kCaughtSignals[i].number, &app, nullptr);
    c.active.store(false);
  }
}

CLPROF_NO_SANITIZE bool app_sigaction(int sig, const struct sigaction* act, struct sigaction* old,
                                      int* rc) {
  const int i = index_of(sig);
  if (i < 0 || !g_caught[i].active.load(std::memory_order_acquire)) return false;
  Caught& c = g_caught[i];
  // A copy first: act and old may be the same struct.
  struct sigaction next;
  if (act) next = *act;
  if (!in_table_process()) {
    // A vfork child shares the table with its parent: it reads it and changes only its
    // own kernel dispositions (gone at its exec, as the app's would be).
    if (old) *old = read_app(c);
    *rc = act ? real_sigaction(sig, &next, nullptr) : 0;
    return true;
  }
  ChangeLock lock;
  if (!c.active.load(std::memory_order_relaxed)) return false;
  struct sigaction kernel;
  std::memset(static_cast<void*>(&kernel), 0, sizeof kernel);
  if (real_sigaction(sig, nullptr, &kernel) != 0) return false;
  const struct sigaction app = read_app(c);
  if (!is_ours(kernel) && !(app.sa_handler == SIG_IGN && kernel.sa_handler == SIG_IGN)) {
    // Set behind the interposer's back: the kernel's disposition is the app's now.
    c.active.store(false);
    return false;
  }
  if (old) *old = app;
  if (act) {
    if (install_kernel(sig, next) != 0) {
      *rc = -1;  // errno from sigaction
      return true;
    }
    write_app(c, next);
  }
  *rc = 0;
  return true;
}

namespace {
// As ChangeLock, from the prepare handler to the parent's or the child's (the forking
// thread's mask is kept here meanwhile).
sigset_t g_fork_saved_mask;
}  // namespace

void fatal_signals_fork_prepare() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &g_fork_saved_mask);
  while (g_lock.test_and_set(std::memory_order_acquire)) sched_yield();
}

void fatal_signals_fork_parent() {
  g_lock.clear(std::memory_order_release);
  pthread_sigmask(SIG_SETMASK, &g_fork_saved_mask, nullptr);
}

void fatal_signals_fork_child() {
  if (g_table_pid.load(std::memory_order_relaxed) != 0)
    g_table_pid.store(getpid(), std::memory_order_relaxed);
  g_lock.clear(std::memory_order_release);
  pthread_sigmask(SIG_SETMASK, &g_fork_saved_mask, nullptr);
}

}  // namespace clprof::shim
