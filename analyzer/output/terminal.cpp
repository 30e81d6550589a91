#include "output/terminal.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace clprof::output {

size_t table_width(int fd) {
  if (const char* c = std::getenv("COLUMNS")) {
    const std::string s = c;
    if (!s.empty() && s.size() < 6 && s.find_first_not_of("0123456789") == std::string::npos) {
      const size_t w = std::stoul(s);
      if (w > 0) return w;
    }
  }
  if (fd >= 0 && isatty(fd)) {
    winsize ws{};
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  }
  return SIZE_MAX;
}

}  // namespace clprof::output
