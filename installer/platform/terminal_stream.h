// An output stream that writes to another through core::ForTerminal: what torchdex prints (its
// messages, warnings, plans, and the output of pip and uv it relays) can carry bytes from
// outside (a provider's path, a lock's strings, a page's names), and none of them may drive the
// user's terminal (issue 29, item 12). Main() wraps standard output and error in one each, so
// this is the one place every printed byte passes. A character cut across two writes is held
// until it is whole; flush() writes what is held.
#ifndef TORCHDEX_INSTALLER_PLATFORM_TERMINAL_STREAM_H_
#define TORCHDEX_INSTALLER_PLATFORM_TERMINAL_STREAM_H_

#include <ostream>
#include <streambuf>
#include <string>

namespace torchdex::installer {

class TerminalSafeBuffer final : public std::streambuf {
 public:
  explicit TerminalSafeBuffer(std::ostream& target) : target_(target) {}
  ~TerminalSafeBuffer() override { Drain(true); }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Drain(bool all);

  std::ostream& target_;
  std::string pending_;
};

class TerminalSafeStream final : public std::ostream {
 public:
  explicit TerminalSafeStream(std::ostream& target) : std::ostream(nullptr), buffer_(target) { rdbuf(&buffer_); }
  ~TerminalSafeStream() override { flush(); }

 private:
  TerminalSafeBuffer buffer_;
};

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_TERMINAL_STREAM_H_
