// Selection as a pure function: table-driven cases over facts, against a small catalogue that
// holds the real numbers (index-format.md §4 for torch ranges, detection.md §4 for arch lists
// and driver tables).
#include "installer/select/selection.h"

#include <gtest/gtest.h>

#include <map>

#include "core/version.h"

namespace torchdex::installer {
namespace {

std::vector<core::ComputeCapability> Ccs(std::initializer_list<const char*> texts) {
  std::vector<core::ComputeCapability> out;
  for (const char* t : texts) out.push_back(*core::ComputeCapability::Parse(t));
  return out;
}

std::optional<core::DriverVersion> Driver(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return core::DriverVersion::Parse(text);
}

struct FakeBackend {
  BackendView view;
  std::string first;  // torch range offered
  std::string last;
};

class FakeCatalogue : public CatalogueView {
 public:
  FakeCatalogue() {
    add("cpu", core::BackendKind::kCpu, "", "2.0.0", "2.11.0");
    add("cu118", core::BackendKind::kCuda, "11.8", "2.0.0", "2.7.1");
    add("cu121", core::BackendKind::kCuda, "12.1", "2.1.0", "2.5.1");
    add("cu124", core::BackendKind::kCuda, "12.4", "2.4.0", "2.6.0");
    add("cu126", core::BackendKind::kCuda, "12.6", "2.6.0", "2.11.0");
    add("cu128", core::BackendKind::kCuda, "12.8", "2.7.0", "2.11.0");
    add("cu130", core::BackendKind::kCuda, "13.0", "2.9.0", "2.11.0");
    add("rocm6.3", core::BackendKind::kRocm, "6.3", "2.7.0", "2.9.1");
    add("rocm6.4", core::BackendKind::kRocm, "6.4", "2.8.0", "2.9.1");
    add("xpu", core::BackendKind::kXpu, "", "2.6.0", "2.11.0");
  }

  std::vector<BackendView> Backends(const std::string&) const override {
    std::vector<BackendView> out;
    for (const FakeBackend& b : backends_) out.push_back(b.view);
    return out;
  }
  std::vector<std::string> Versions(const std::string& project, const std::string& backend) const override {
    if (project != "torch" && project != "torchvision") return {};
    for (const FakeBackend& b : backends_) {
      if (b.view.name != backend) continue;
      std::vector<std::string> out;
      for (const char* v : kReleases) {
        const core::Version version = *core::Version::Parse(v);
        if (version >= *core::Version::Parse(b.first) && version <= *core::Version::Parse(b.last)) {
          std::string text = project == "torch" ? v : "0." + std::to_string(version.release()[1] + 15) + "." + std::to_string(version.release()[2]);
          out.push_back(text + "+" + backend);
        }
      }
      return out;
    }
    return {};
  }
  bool HasWheelFor(const std::string&, const std::string&, const std::string& version,
                   const std::vector<core::Tag>& supported) const override {
    // torch 2.3.1 was built before CPython 3.13: no cp313 wheel.
    for (const core::Tag& t : supported) {
      if (t.interpreter == "cp313" && version.starts_with("2.3.")) return false;
    }
    return true;
  }
  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string&) const override {
    const core::Version v = *core::Version::Parse(torch_version);
    auto at_least = [&](const char* x) { return v >= *core::Version::Parse(x); };
    if (backend == "cu118") return ArchView{Ccs({"3.7", "5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}), std::nullopt, {}};
    if (backend == "cu121" || backend == "cu124" || backend == "cu126") {
      return ArchView{Ccs({"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"}), std::nullopt, {}};
    }
    if (backend == "cu128") {
      if (at_least("2.11")) return ArchView{Ccs({"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), std::nullopt, {}};
      if (at_least("2.8")) return ArchView{Ccs({"7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), std::nullopt, {}};
      return ArchView{Ccs({"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), std::nullopt, {}};
    }
    if (backend == "cu130") return ArchView{Ccs({"7.5", "8.0", "8.6", "9.0", "10.0", "12.0"}), core::ComputeCapability::Parse("12.0"), {}};
    if (backend == "rocm6.3") {
      return ArchView{{}, std::nullopt, {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100",
                       "gfx1101", "gfx1102", "gfx1200", "gfx1201"}};
    }
    if (backend == "rocm6.4") {
      return ArchView{{}, std::nullopt, {"gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030",
                       "gfx1100", "gfx1101", "gfx1102", "gfx1150", "gfx1151", "gfx1200", "gfx1201"}};
    }
    return std::nullopt;
  }
  std::string Toolkit(const std::string& backend) const {
    for (const FakeBackend& b : backends_) {
      if (b.view.name == backend) return b.view.toolkit;
    }
    return "";
  }
  std::optional<core::DriverVersion> DriverFloor(const std::string& backend, core::TargetOs os) const override {
    const std::string toolkit = Toolkit(backend);
    const bool win = os == core::TargetOs::kWindows;
    if (toolkit.starts_with("11.")) return Driver(win ? "452.39" : "450.80.02");
    if (toolkit.starts_with("12.")) return Driver(win ? "528.33" : "525.60.13");
    if (toolkit.starts_with("13.")) return Driver(win ? "580.00" : "580.65.06");
    return std::nullopt;
  }
  std::optional<core::DriverVersion> ReleaseDriver(const std::string& backend, core::TargetOs os) const override {
    const std::string toolkit = Toolkit(backend);
    static const std::map<std::string, std::pair<std::string, std::string>> kDrivers = {
        {"11.8", {"520.61.05", "520.06"}}, {"12.1", {"530.30.02", "531.14"}},
        {"12.4", {"550.54.14", "551.61"}}, {"12.6", {"560.28.03", "560.76"}},
        {"12.8", {"570.26", "570.65"}},    {"13.0", {"580.65.06", "580.00"}}};
    auto it = kDrivers.find(toolkit);
    if (it == kDrivers.end()) return std::nullopt;
    return Driver(os == core::TargetOs::kWindows ? it->second.second : it->second.first);
  }

 private:
  static constexpr const char* kReleases[] = {
      "2.0.0", "2.0.1", "2.1.0", "2.1.2", "2.2.2", "2.3.0", "2.3.1", "2.4.1", "2.5.1",
      "2.6.0", "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.9.1", "2.10.0", "2.11.0"};
  void add(const char* name, core::BackendKind kind, const char* toolkit, const char* first, const char* last) {
    backends_.push_back({BackendView{name, kind, toolkit}, first, last});
  }
  std::vector<FakeBackend> backends_;
};

HostFacts Nvidia(const std::string& driver, std::vector<std::string> ccs) {
  HostFacts f;
  f.os = core::TargetOs::kLinux;
  f.arch = "x86_64";
  NvidiaFacts n;
  n.driver_version = Driver(driver);
  n.devices_exposed = true;
  n.devices_exposed_source = "/dev/nvidiactl";
  int i = 0;
  for (const std::string& cc : ccs) {
    NvidiaGpu g;
    g.compute_capability = core::ComputeCapability::Parse(cc);
    g.pci_bus_id = "0000:0" + std::to_string(++i) + ":00.0";
    n.gpus.push_back(g);
  }
  f.nvidia = n;
  return f;
}

HostFacts Amd(const std::string& gfx) {
  HostFacts f;
  f.os = core::TargetOs::kLinux;
  f.arch = "x86_64";
  AmdFacts a;
  a.gfx = {gfx};
  a.kfd_access = true;
  f.amd = a;
  return f;
}

HostFacts Intel(bool xpu) {
  HostFacts f;
  f.os = core::TargetOs::kLinux;
  f.arch = "x86_64";
  IntelFacts i;
  IntelGpu g;
  g.pci_id = xpu ? "0x56a0" : "0xa780";
  g.name = xpu ? "Intel Arc A770" : "Intel UHD Graphics 770";
  (xpu ? i.xpu_devices : i.other_gpus).push_back(g);
  f.intel = i;
  return f;
}

SelectionTarget Cp312() {
  SelectionTarget t;
  core::InterpreterInfo info;
  info.python_minor = 12;
  info.libc_minor = 35;
  t.supported_tags = core::SupportedTags(info);
  t.python_description = "CPython 3.12";
  return t;
}

SelectionRequest Torch(const std::string& spec = "") {
  SelectionRequest r;
  if (!spec.empty()) r.routed.push_back(*core::Requirement::Parse("torch" + spec));
  return r;
}

std::string Chosen(const Selection& s) { return s.chosen ? s.chosen->backend : "(none)"; }

const Rejection* RejectionOf(const Selection& s, const std::string& backend) {
  for (const Rejection& r : s.rejected) {
    if (r.backend == backend) return &r;
  }
  return nullptr;
}

struct Case {
  const char* name;
  HostFacts facts;
  SelectionRequest request;
  const char* backend;
  const char* version;
};

TEST(SelectionTest, PicksTheBackendTheRulesSay) {
  HostFacts wsl = Nvidia("572.60", {"8.9"});
  wsl.wsl = true;
  wsl.nvidia->driver_table = DriverTable::kWindows;
  const Case cases[] = {
      {"driver 470 is too old for CUDA 12: cu118 only", Nvidia("470.256.02", {"8.6"}), Torch(), "cu118", "2.7.1+cu118"},
      {"GTX 1080 on driver 535 with torch 2.8: cu126, cu128 dropped sm_61", Nvidia("535.230.02", {"6.1"}), Torch("==2.8.*"), "cu126", "2.8.0+cu126"},
      {"V100 on driver 550 with torch 2.11: cu126, cu128 dropped Volta", Nvidia("550.144.03", {"7.0"}), Torch("==2.11.*"), "cu126", "2.11.0+cu126"},
      {"RTX 5090 on driver 580: a build with sm_120", Nvidia("580.82.07", {"12.0"}), Torch(), "cu130", "2.11.0+cu130"},
      {"torch==2.3.1 on driver 580: cu121, the newest toolkit that has it", Nvidia("580.82.07", {"8.6"}), Torch("==2.3.1"), "cu121", "2.3.1+cu121"},
      {"WSL with Windows driver 572.60: CUDA 12 builds, not 13", wsl, Torch(), "cu128", "2.11.0+cu128"},
      {"gfx1100: the newest ROCm backend listing it", Amd("gfx1100"), Torch(), "rocm6.4", "2.9.1+rocm6.4"},
      {"gfx1151 only in rocm6.4", Amd("gfx1151"), Torch(), "rocm6.4", "2.9.1+rocm6.4"},
      {"gfx1036 APU: no ROCm build, CPU", Amd("gfx1036"), Torch(), "cpu", "2.11.0+cpu"},
      {"Arc A770: xpu", Intel(true), Torch(), "xpu", "2.11.0+xpu"},
      {"UHD 770 only: cpu", Intel(false), Torch(), "cpu", "2.11.0+cpu"},
      {"sm_61 + sm_89: a backend covering both", Nvidia("550.144.03", {"6.1", "8.9"}), Torch(), "cu126", "2.11.0+cu126"},
      {"no GPU: cpu", HostFacts{}, Torch(), "cpu", "2.11.0+cpu"},
  };
  for (const Case& c : cases) {
    const Selection s = SelectBackend(c.facts, Cp312(), c.request, FakeCatalogue());
    EXPECT_EQ(Chosen(s), c.backend) << c.name;
    if (s.chosen) {
      EXPECT_EQ(s.chosen->primary_version, c.version) << c.name;
    }
  }
}

TEST(SelectionTest, ExplainsEveryRejection) {
  // GTX 1080, driver 535, torch 2.8.
  const Selection s = SelectBackend(Nvidia("535.230.02", {"6.1"}), Cp312(), Torch("==2.8.*"), FakeCatalogue());
  ASSERT_EQ(Chosen(s), "cu126");
  const Rejection* cu128 = RejectionOf(s, "cu128");
  ASSERT_NE(cu128, nullptr);
  EXPECT_EQ(cu128->reasons.front(),
            "GPU sm_61 is not in this build's arch list (7.0 7.5 8.0 8.6 9.0 10.0 12.0) for torch 2.8.0");
  const Rejection* cu130 = RejectionOf(s, "cu130");
  ASSERT_NE(cu130, nullptr);
  EXPECT_EQ(cu130->reasons.front(), "driver 535.230.02 is below 580.65.06, the minimum for CUDA 13.0 builds on Linux");
  const Rejection* cu124 = RejectionOf(s, "cu124");
  ASSERT_NE(cu124, nullptr);
  EXPECT_EQ(cu124->reasons.front(), "torch==2.8.* is not offered on this backend");
  EXPECT_NE(RejectionOf(s, "rocm6.3"), nullptr);
  EXPECT_EQ(RejectionOf(s, "rocm6.3")->reasons.front(), "no AMD GPU found");
  // The runners-up are the other candidates, best first: the CPU build comes last.
  ASSERT_GE(s.candidates.size(), 2u);
  EXPECT_EQ(s.candidates.back().backend, "cpu");
  EXPECT_NE(s.explanation.front().find("sm_61 by cubin sm_60"), std::string::npos) << s.explanation.front();
}

TEST(SelectionTest, WslComparesWithTheWindowsColumn) {
  HostFacts wsl = Nvidia("572.60", {"8.9"});
  wsl.nvidia->driver_table = DriverTable::kWindows;
  const Selection s = SelectBackend(wsl, Cp312(), Torch(), FakeCatalogue());
  const Rejection* cu130 = RejectionOf(s, "cu130");
  ASSERT_NE(cu130, nullptr);
  EXPECT_EQ(cu130->reasons.front(), "driver 572.60 is below 580.00, the minimum for CUDA 13.0 builds on Windows");
}

TEST(SelectionTest, BlackwellNeverGetsABuildWithoutItsArch) {
  const Selection s = SelectBackend(Nvidia("580.82.07", {"12.0"}), Cp312(), Torch(), FakeCatalogue());
  const Rejection* cu126 = RejectionOf(s, "cu126");
  ASSERT_NE(cu126, nullptr);
  EXPECT_NE(cu126->reasons.front().find("sm_120 is not in this build's arch list"), std::string::npos);
  for (const Candidate& c : s.candidates) EXPECT_NE(c.backend, "cu126");
}

TEST(SelectionTest, PtxNeedsADriverAsNewAsItsToolkit) {
  // A future sm_13.0 GPU: only cu130's PTX (12.0) can serve it, and only with a driver that
  // can compile PTX of CUDA 13.0.
  const Selection ok = SelectBackend(Nvidia("580.82.07", {"13.0"}), Cp312(), Torch(), FakeCatalogue());
  EXPECT_EQ(Chosen(ok), "cu130");
  EXPECT_NE(ok.explanation.front().find("sm_130 by PTX sm_120 (JIT)"), std::string::npos) << ok.explanation.front();
}

// The real limits for a few toolkits (data/cuda-archs.json toolkit_targets) and torch's
// integrated GPUs; the fake's lists are those of FakeCatalogue.
class LimitedCatalogue : public FakeCatalogue {
 public:
  CudaLimits Limits(const std::string& backend) const override {
    CudaLimits l;
    l.integrated = Ccs({"5.3", "6.2", "7.2", "8.7", "10.1"});
    static const std::map<std::string, std::vector<const char*>> kTargets = {
        {"cu118",
         {"3.5", "3.7", "5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6",
          "8.7", "8.9", "9.0"}},
        {"cu121",
         {"5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9",
          "9.0"}},
        {"cu124",
         {"5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9",
          "9.0"}},
        {"cu126",
         {"5.0", "5.2", "5.3", "6.0", "6.1", "6.2", "7.0", "7.2", "7.5", "8.0", "8.6", "8.7", "8.9",
          "9.0"}},
        {"cu128",
         {"5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.1", "12.0"}},
        {"cu130",
         {"7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"}}};
    if (auto it = kTargets.find(backend); it != kTargets.end()) {
      for (const char* cc : it->second)
        l.toolkit_targets.push_back(*core::ComputeCapability::Parse(cc));
    }
    return l;
  }
  // cu118 for torch 2.7 and cu124 for all: lists unknown (as in the data for 2.7 cu118).
  std::optional<ArchView> Arch(const std::string& backend, const std::string& torch_version,
                               const std::string& cpu_arch) const override {
    if (backend == "cu124" || (backend == "cu118" && torch_version.starts_with("2.7")))
      return std::nullopt;
    return FakeCatalogue::Arch(backend, torch_version, cpu_arch);
  }
};

TEST(SelectionTest, ACudaToolkitCannotBuildForANewerGpuEvenWithoutAList) {
  // RTX 5090 (sm_120), torch 2.3.1: only cu118 and cu121 offer it, and neither toolkit builds
  // anything sm_120 runs: CPU, with the toolkit as the reason.
  Selection s =
      SelectBackend(Nvidia("575.64.03", {"12.0"}), Cp312(), Torch("==2.3.1"), LimitedCatalogue());
  EXPECT_EQ(Chosen(s), "cpu");
  ASSERT_NE(RejectionOf(s, "cu121"), nullptr);
  EXPECT_EQ(RejectionOf(s, "cu121")->reasons.front(),
            "CUDA 12.1 cannot build code that runs on sm_120: its newest architecture is sm_90, "
            "and this build "
            "has no PTX (torch 2.3.1); sm_120 needs CUDA 12.8 or newer (cu128)");
  EXPECT_NE(s.explanation.back().find("CUDA 11.8 cannot build code that runs on sm_120"),
            std::string::npos)
      << s.explanation.back();
  // cu124 has no list in this catalogue: the toolkit still rules it out.
  s = SelectBackend(Nvidia("575.64.03", {"12.0"}), Cp312(), Torch("==2.6.0"), LimitedCatalogue());
  ASSERT_NE(RejectionOf(s, "cu124"), nullptr);
  EXPECT_EQ(RejectionOf(s, "cu124")
                ->reasons.front()
                .rfind("CUDA 12.4 cannot build code that runs on sm_120", 0),
            0u);
  // The other way: CUDA 13 builds nothing a Volta runs.
  s = SelectBackend(Nvidia("580.82.07", {"7.0"}), Cp312(), Torch(), LimitedCatalogue());
  ASSERT_NE(RejectionOf(s, "cu130"), nullptr);
  EXPECT_EQ(
      RejectionOf(s, "cu130")
          ->reasons.front()
          .rfind("CUDA 13.0 cannot build code that runs on sm_70: its oldest architecture is sm_75",
                 0),
      0u);
  // A named backend is refused for it too, when the host's GPUs are known.
  SelectionRequest named = Torch("==2.3.1");
  named.named = "cu121";
  named.named_by = "--torch-backend";
  s = SelectBackend(Nvidia("575.64.03", {"12.0"}), Cp312(), named, LimitedCatalogue());
  EXPECT_FALSE(s.chosen);
  ASSERT_EQ(s.rejected.size(), 1u);
  EXPECT_NE(s.rejected[0].reasons[0].find("(cu121 named by --torch-backend)"), std::string::npos);
}

TEST(SelectionTest, AnUnknownListIsUsedOnlyAfterTheKnownOnesAndSaysSo) {
  // torch 2.7.1 on an RTX 4090: cu126 and cu128 have lists covering sm_89; cu118 2.7.1 has
  // none, so it ranks after them and would be chosen only alone.
  Selection s =
      SelectBackend(Nvidia("575.64.03", {"8.9"}), Cp312(), Torch("==2.7.1"), LimitedCatalogue());
  EXPECT_EQ(Chosen(s), "cu128");
  bool cu118_unverified = false;
  for (const Candidate& c : s.candidates) {
    if (c.backend == "cu118") cu118_unverified = !c.arch_verified && !c.unverified.empty();
  }
  EXPECT_TRUE(cu118_unverified);
  // Within one backend an older release with a known list wins over a newer unknown one.
  s = SelectBackend(Nvidia("520.61.05", {"8.9"}), Cp312(), Torch(), LimitedCatalogue());
  EXPECT_EQ(Chosen(s), "cu118");
  EXPECT_EQ(s.chosen->primary_version, "2.6.0+cu118");
  EXPECT_TRUE(s.chosen->arch_verified);
}

TEST(SelectionTest, IntegratedGpusRunOnlyTheirOwnCubins) {
  // An Orin (sm_87) described by overrides, not by L4T: the 8.0/8.6 cubins of the desktop
  // builds do not run on it (torch's DEVICE_REQUIREMENT), and no build carries sm_87.
  const Selection s =
      SelectBackend(Nvidia("540.4.0", {"8.7"}), Cp312(), Torch("==2.8.*"), LimitedCatalogue());
  EXPECT_EQ(Chosen(s), "cpu");
  ASSERT_NE(RejectionOf(s, "cu126"), nullptr);
  EXPECT_NE(RejectionOf(s, "cu126")
                ->reasons.front()
                .find("sm_87 is an integrated (Tegra) GPU, which runs only its own cubins"),
            std::string::npos)
      << RejectionOf(s, "cu126")->reasons.front();
  EXPECT_TRUE(CubinRunsOn(*core::ComputeCapability::Parse("8.0"),
                          *core::ComputeCapability::Parse("8.6"), Ccs({"8.7"})));
  EXPECT_FALSE(CubinRunsOn(*core::ComputeCapability::Parse("8.0"),
                           *core::ComputeCapability::Parse("8.7"), Ccs({"8.7"})));
  EXPECT_TRUE(CubinRunsOn(*core::ComputeCapability::Parse("8.7"),
                          *core::ComputeCapability::Parse("8.7"), Ccs({"8.7"})));
  EXPECT_TRUE(CubinRunsOn(*core::ComputeCapability::Parse("12.0"),
                          *core::ComputeCapability::Parse("12.1"),
                          Ccs({"8.7"})));  // DGX Spark GB10 runs the 12.0 cubins
  EXPECT_FALSE(CubinRunsOn(*core::ComputeCapability::Parse("6.0"),
                           *core::ComputeCapability::Parse("6.2"), Ccs({"6.2"})));  // TX2
}

TEST(SelectionTest, ContainersJetsonAndMacOS) {
  HostFacts container = Nvidia("550.144.03", {"8.6"});
  container.container = true;
  container.nvidia->devices_exposed = false;
  container.nvidia->devices_exposed_source = "missing /dev/nvidiactl";
  Selection s = SelectBackend(container, Cp312(), Torch(), FakeCatalogue());
  EXPECT_EQ(Chosen(s), "cpu");
  EXPECT_NE(s.explanation.back().find("no device is exposed here (missing /dev/nvidiactl)"), std::string::npos)
      << s.explanation.back();

  HostFacts jetson = Nvidia("36.4.3", {"8.7"});
  jetson.jetson = JetsonFacts{"36.4.3", "/etc/nv_tegra_release"};
  s = SelectBackend(jetson, Cp312(), Torch(), FakeCatalogue());
  EXPECT_EQ(Chosen(s), "cpu");
  EXPECT_NE(s.explanation.back().find("Jetson (L4T 36.4.3)"), std::string::npos);

  SelectionTarget mac = Cp312();
  mac.os = core::TargetOs::kMacOS;
  s = SelectBackend(HostFacts{}, mac, Torch(), FakeCatalogue());
  EXPECT_TRUE(s.default_index);
  EXPECT_FALSE(s.chosen.has_value());
}

TEST(SelectionTest, TagsDecideWhatIsOffered) {
  SelectionTarget cp313 = Cp312();
  core::InterpreterInfo info;
  info.python_minor = 13;
  cp313.supported_tags = core::SupportedTags(info);
  cp313.python_description = "CPython 3.13";
  const Selection s = SelectBackend(Nvidia("580.82.07", {"8.6"}), cp313, Torch("==2.3.1"), FakeCatalogue());
  EXPECT_FALSE(s.chosen.has_value());
  const Rejection* cu121 = RejectionOf(s, "cu121");
  ASSERT_NE(cu121, nullptr);
  EXPECT_EQ(cu121->reasons.front(), "torch==2.3.1 is offered (2.3.1+cu121), but not for CPython 3.13 on linux x86_64");
}

TEST(SelectionTest, OneBackendForEveryRoutedPackage) {
  SelectionRequest r = Torch("==2.8.*");
  r.routed.push_back(*core::Requirement::Parse("torchvision"));
  const Selection s = SelectBackend(Nvidia("535.230.02", {"6.1"}), Cp312(), r, FakeCatalogue());
  EXPECT_EQ(Chosen(s), "cu126");
  r.routed.push_back(*core::Requirement::Parse("torchaudio"));  // the fake has no torchaudio
  const Selection none = SelectBackend(Nvidia("535.230.02", {"6.1"}), Cp312(), r, FakeCatalogue());
  EXPECT_FALSE(none.chosen.has_value());
  EXPECT_EQ(RejectionOf(none, "cu126")->reasons.front(), "no torchaudio builds on this backend");
}

}  // namespace
}  // namespace torchdex::installer
