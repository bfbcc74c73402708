// The clock used for timings_us, injectable so tests get deterministic numbers.
#ifndef TORCHDEX_INSTALLER_PLATFORM_CLOCK_H_
#define TORCHDEX_INSTALLER_PLATFORM_CLOCK_H_

#include <chrono>
#include <cstdint>

namespace torchdex::installer {

class Clock {
 public:
  virtual ~Clock() = default;
  // Microseconds since an arbitrary fixed point.
  virtual int64_t NowMicros() const = 0;
};

class SteadyClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace torchdex::installer

#endif  // TORCHDEX_INSTALLER_PLATFORM_CLOCK_H_
