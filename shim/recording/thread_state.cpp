#include "recording/thread_state.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace clprof::shim {

thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

// Guards both lists (constant-initialised, nothing to destroy). The lists are leaked:
// threads may end during static destruction.
std::mutex g_list_mutex;
std::vector<ThreadState*>& listed() {
  static auto* v = new std::vector<ThreadState*>;
  return *v;
}
std::vector<ThreadState*>& spare() {
  static auto* v = new std::vector<ThreadState*>;
  return *v;
}

// A thread is ending: its state goes back to the pool, so apps that start threads over
// and over do not grow the shim's memory. A state with open ranges stays listed, for
// the finaliser to close them.
void release_thread_state(void* p) {
  auto* t = static_cast<ThreadState*>(p);
  if (t_thread_state == t) t_thread_state = nullptr;
  std::lock_guard<std::mutex> lock(g_list_mutex);
  if (t->ranges.depth() > 0) return;
  auto& list = listed();
  const auto it = std::find(list.begin(), list.end(), t);
  if (it == list.end()) return;  // a fork child's stale state
  list.erase(it);
  spare().push_back(t);
}

pthread_key_t thread_state_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, release_thread_state);
    return k;
  }();
  return key;
}

}  // namespace

ThreadState& thread_state_slow() {
  const pthread_key_t key = thread_state_key();
  ThreadState* t = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_list_mutex);
    auto& pool = spare();
    if (!pool.empty()) {
      t = pool.back();
      pool.pop_back();
      *t = ThreadState{};  // fresh caches and an empty range stack
    }
  }
  if (!t) t = new ThreadState;
  t->tid = static_cast<int>(syscall(SYS_gettid));
  {
    std::lock_guard<std::mutex> lock(g_list_mutex);
    listed().push_back(t);
  }
  t_thread_state = t;
  pthread_setspecific(key, t);
  return *t;
}

std::vector<ThreadState*> listed_thread_states() {
  std::lock_guard<std::mutex> lock(g_list_mutex);
  return listed();
}

void thread_states_fork_prepare() {
  g_list_mutex.lock();
}

void thread_states_fork_parent() {
  g_list_mutex.unlock();
}

void thread_states_fork_child() {
  auto& list = listed();
  list.clear();
  if (t_thread_state) {
    t_thread_state->tid = static_cast<int>(syscall(SYS_gettid));
    t_thread_state->ranges.clear();
    list.push_back(t_thread_state);
  }
  g_list_mutex.unlock();
}

}  // namespace clprof::shim
