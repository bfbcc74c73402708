#include "installer/platform/terminal_stream.h"

#include "core/utf8.h"

namespace torchdex::installer {

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  pending_.push_back(traits_type::to_char_type(c));
  if (c == '\n' || pending_.size() >= 4096) Drain(false);
  return c;
}

std::streamsize TerminalSafeBuffer::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  if (pending_.size() >= 4096 || pending_.find('\n') != std::string::npos) Drain(false);
  return n;
}

int TerminalSafeBuffer::sync() {
  Drain(true);
  target_.flush();
  return target_ ? 0 : -1;
}

void TerminalSafeBuffer::Drain(bool all) {
  if (pending_.empty()) return;
  std::size_t consumed = 0;
  target_ << core::ForTerminal(pending_, all ? nullptr : &consumed);
  if (all) {
    pending_.clear();
  } else {
    pending_.erase(0, consumed);
  }
}

}  // namespace torchdex::installer
