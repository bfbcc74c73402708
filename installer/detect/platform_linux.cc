// Linux: the host (arch, WSL, container, Jetson), the PCI display devices, then NVIDIA, AMD and
// Intel, cheapest sources first.
#include <sys/utsname.h>

#include <charconv>
#include <cstdio>

#include "installer/detect/host_parsers.h"
#include "installer/detect/linux_sources.h"
#include "installer/platform/text.h"

namespace torchdex::installer {
namespace {

std::optional<unsigned> ParseSysfsHex(std::string_view text) {
  text = Trim(text);
  if (!StartsWith(text, "0x") || text.size() < 3 || text.size() > 10) return std::nullopt;
  unsigned value = 0;
  auto [end, error] = std::from_chars(text.data() + 2, text.data() + text.size(), value, 16);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void DetectHost(DetectContext& context) {
  HostFacts& facts = context.facts;
  facts.os = core::TargetOs::kLinux;
  if (std::optional<std::string> text = context.ReadText("/proc/sys/kernel/arch")) {
    if (std::optional<std::string> arch = ParseKernelArch(*text)) {
      facts.arch = *arch;
    } else {
      context.Warn("/proc/sys/kernel/arch: unexpected contents " + Quote(*text) +
                   "; using this machine's architecture");
    }
  }
  if (facts.arch.empty()) {
    // Kernels before 5.x have no /proc/sys/kernel/arch; a captured host should carry it.
    struct utsname name;
    if (::uname(&name) == 0) facts.arch = name.machine;
  }

  if (context.files().Exists("/dev/dxg")) {
    facts.wsl = true;
    facts.wsl_source = "/dev/dxg";
  } else if (std::optional<std::string> text = context.ReadText("/proc/sys/kernel/osrelease")) {
    if (OsReleaseIsWsl(*text)) {
      facts.wsl = true;
      facts.wsl_source = "/proc/sys/kernel/osrelease";
    }
  }

  for (const char* marker : {"/.dockerenv", "/run/.containerenv"}) {
    if (context.files().Exists(marker)) {
      facts.container = true;
      facts.container_source = marker;
      break;
    }
  }
  if (!facts.container) {
    if (std::optional<std::string> text = context.ReadText("/proc/1/cgroup")) {
      const std::string runtime = ContainerRuntimeInCgroup(*text);
      if (!runtime.empty()) {
        facts.container = true;
        facts.container_source = "/proc/1/cgroup (" + runtime + ")";
      }
    }
  }
  if (!facts.container) {
    if (std::optional<std::string> value = Lookup(context.deps.env, "container")) {
      if (!value->empty()) {
        facts.container = true;
        facts.container_source = "env container=" + *value;
      }
    }
  }

  if (std::optional<std::string> text = context.ReadText("/etc/nv_tegra_release")) {
    if (std::optional<std::string> l4t = ParseNvTegraRelease(*text)) {
      facts.jetson = JetsonFacts{*l4t};
    } else {
      context.Warn("/etc/nv_tegra_release: unexpected contents " + Quote(*text) +
                   "; not treated as a Jetson");
    }
  }
}

}  // namespace

std::string HexId(unsigned id) {
  char buffer[12];
  std::snprintf(buffer, sizeof buffer, "0x%04x", id);
  return buffer;
}

std::vector<PciDisplayDevice> ReadPciDisplayDevices(DetectContext& context) {
  std::vector<PciDisplayDevice> devices;
  const std::string base = "/sys/bus/pci/devices/";
  for (const std::string& bus_id : context.files().ListDirectory(base)) {
    const std::string dir = base + bus_id + "/";
    std::optional<std::string> class_text = context.ReadText(dir + "class", 256);
    if (!class_text) continue;
    std::optional<unsigned> class_code = ParseSysfsHex(*class_text);
    if (!class_code) {
      context.Warn(dir + "class: unexpected contents " + Quote(*class_text) + "; device skipped");
      continue;
    }
    if ((*class_code >> 16) != 0x03) continue;
    // -1: absent or unparsable (std::optional here trips a g++ 12 maybe-uninitialized warning).
    auto read_id = [&](const char* name) -> int64_t {
      std::optional<std::string> text = context.ReadText(dir + name, 256);
      std::optional<unsigned> id = text ? ParseSysfsHex(*text) : std::nullopt;
      return id && *id <= 0xffff ? int64_t{*id} : -1;
    };
    const int64_t vendor = read_id("vendor");
    const int64_t device = read_id("device");
    if (vendor < 0 || device < 0) {
      context.Warn(dir + ": display device without a readable vendor and device id; skipped");
      continue;
    }
    PciDisplayDevice entry;
    entry.bus_id = bus_id;
    entry.vendor = static_cast<unsigned>(vendor);
    entry.device = static_cast<unsigned>(device);
    entry.class_code = *class_code;
    if (std::optional<std::string> link = context.files().ReadLink(dir + "driver")) {
      entry.driver = link->substr(link->rfind('/') + 1);
    }
    devices.push_back(std::move(entry));
  }
  return devices;
}

void DetectPlatform(DetectContext& context) {
  int64_t start = context.Now();
  DetectHost(context);
  context.AddTiming("host", start);

  start = context.Now();
  const std::vector<PciDisplayDevice> pci = ReadPciDisplayDevices(context);
  context.AddTiming("pci", start);

  DetectNvidiaLinux(context, pci);
  DetectAmdLinux(context, pci);
  DetectIntelLinux(context, pci);
}

}  // namespace torchdex::installer
