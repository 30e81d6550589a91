#include "runtime/handback.hpp"

#include <algorithm>

#include "recording/objects.hpp"

namespace clprof::shim {

EventHandback::EventHandback(MpscRing<OpRecord>& ring)
    : ring_(ring), freed_cells_(ring.capacity()) {}

void EventHandback::release_app_event(void* event) {
  event_ref_release(static_cast<cl_event>(event));
}

void EventHandback::release_private_event(void* event) {
  real().clReleaseEvent(static_cast<cl_event>(event));
}

void EventHandback::on_harvester_idle() {
  if (drained_since_idle_ == 0) {
    waiting_.release_all();
    release_cell_handbacks(handback_scan_from_);
    freed_cells_.clear();
  }
  drained_since_idle_ = 0;
}

void EventHandback::release_all() {
  waiting_.release_all();
  release_cell_handbacks(0);  // (clamped to the last ring's worth)
}

void EventHandback::hand_back(void* event) {
  std::size_t pos = 0;
  while (freed_cells_.pop(pos)) {
    if (ring_.offer_handback(pos, event)) {
      handback_scan_from_ =
          std::min(handback_scan_from_, pos);  // on_harvester_idle looks there too
      return;
    }
  }
  waiting_.add(event);
}

void EventHandback::release_cell_handbacks(std::size_t from) {
  const std::size_t end = ring_.dequeue_pos();
  if (end - from > ring_.capacity()) from = end - ring_.capacity();
  for (std::size_t pos = from; pos < end; ++pos) {
    if (void* e = ring_.take_handback(pos)) release_private_event(e);
  }
  handback_scan_from_ = end;
}

}  // namespace clprof::shim
