// What an installed torch was built for (installer/doctor/torch_build.h): the local label, else
// torch/version.py read as text. The files below have the shape torch's setup.py writes
// (tools/generate_torch_version.py in pytorch/pytorch): __version__, debug, cuda, git_version,
// hip, and from 2.7 xpu, with `Optional[str]` annotations.
#include <gtest/gtest.h>

#include <string>

#include "installer/doctor/torch_build.h"

namespace torchdex::installer {
namespace {

constexpr const char* kCu124File =
    "from typing import Optional\n\n"
    "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.5.1+cu124'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.4'\n"
    "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
    "hip: Optional[str] = None\n";

TEST(TorchVersionFileTest, ReadsTheFieldsOfACudaBuildsFile) {
  const TorchVersionFile file = ParseTorchVersionFile(kCu124File);
  EXPECT_EQ(file.version, "2.5.1+cu124");
  EXPECT_EQ(file.cuda, "12.4");
  EXPECT_FALSE(file.hip.has_value());
  EXPECT_FALSE(file.xpu.has_value());
  EXPECT_TRUE(file.warnings.empty());
  const auto build = BuildFromVersionFile(file, "/venv/torch/version.py");
  ASSERT_TRUE(build.has_value());
  EXPECT_EQ(build->backend, "cu124");
  EXPECT_EQ(build->kind, core::BackendKind::kCuda);
  EXPECT_EQ(build->toolkit, "12.4");
  EXPECT_EQ(build->source, "/venv/torch/version.py: cuda = '12.4'");
}

TEST(TorchVersionFileTest, PypisUnlabelledTorchIsTheCudaItsFileNames) {
  // PyPI's torch 2.5.1 for Linux x86_64 is a CUDA 12.4 build whose version has no label.
  EXPECT_FALSE(BuildFromLocalLabel("2.5.1").has_value());
  const std::string text = "__version__ = '2.5.1'\ncuda: Optional[str] = '12.4'\nhip: Optional[str] = None\n";
  EXPECT_EQ(BuildFromVersionFile(ParseTorchVersionFile(text), "v.py")->backend, "cu124");
}

TEST(TorchVersionFileTest, RocmCpuAndXpuFiles) {
  const std::string rocm = "cuda: Optional[str] = None\nhip: Optional[str] = '6.2.41133-dd7f95766'\n";
  const auto rocm_build = BuildFromVersionFile(ParseTorchVersionFile(rocm), "v.py");
  ASSERT_TRUE(rocm_build.has_value());
  EXPECT_EQ(rocm_build->backend, "rocm6.2");
  EXPECT_EQ(rocm_build->kind, core::BackendKind::kRocm);
  EXPECT_EQ(rocm_build->toolkit, "6.2");

  const std::string cpu = "cuda: Optional[str] = None\nhip: Optional[str] = None\nxpu: Optional[str] = None\n";
  EXPECT_EQ(BuildFromVersionFile(ParseTorchVersionFile(cpu), "v.py")->kind, core::BackendKind::kCpu);

  const std::string xpu = "cuda: Optional[str] = None\nhip: Optional[str] = None\nxpu: Optional[str] = '20250004'\n";
  EXPECT_EQ(BuildFromVersionFile(ParseTorchVersionFile(xpu), "v.py")->backend, "xpu");
}

TEST(TorchVersionFileTest, AFileOfAnotherShapeIsUnknownWithLocatedWarnings) {
  // Code in place of a literal is never run: the field is unknown and the line is said.
  const TorchVersionFile file = ParseTorchVersionFile(
      "import os\ncuda = os.system('touch /tmp/pwned')\nhip = None\n__version__ = \"2.5.1\"\n");
  ASSERT_EQ(file.warnings.size(), 1u);
  EXPECT_EQ(file.warnings[0], "line 2: cuda is not a string or None; read as unknown");
  EXPECT_FALSE(file.cuda.has_value());
  EXPECT_EQ(file.version, "2.5.1");
  // Neither cuda nor hip assigned: not the shape of any torch's version.py.
  EXPECT_FALSE(BuildFromVersionFile(ParseTorchVersionFile("x = 1\n"), "v.py").has_value());
  EXPECT_FALSE(BuildFromVersionFile(ParseTorchVersionFile(""), "v.py").has_value());
  EXPECT_FALSE(BuildFromVersionFile(ParseTorchVersionFile("cuda = 'twelve'\n"), "v.py").has_value());
  EXPECT_FALSE(BuildFromVersionFile(ParseTorchVersionFile("hip = '6'\n"), "v.py").has_value());
}

TEST(TorchBuildTest, TheLocalLabelNamesTheBackend) {
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+cu124")->backend, "cu124");
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+cu124")->toolkit, "12.4");
  EXPECT_EQ(BuildFromLocalLabel("1.13.1+cu117")->toolkit, "11.7");
  EXPECT_EQ(BuildFromLocalLabel("2.9.0+cu130")->toolkit, "13.0");
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+cpu")->kind, core::BackendKind::kCpu);
  EXPECT_EQ(BuildFromLocalLabel("2.1.0+cpu.cxx11.abi")->backend, "cpu");
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+rocm6.2")->backend, "rocm6.2");
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+rocm6.2")->kind, core::BackendKind::kRocm);
  EXPECT_EQ(BuildFromLocalLabel("2.7.0+xpu")->kind, core::BackendKind::kXpu);
  EXPECT_EQ(BuildFromLocalLabel("2.5.1+cu124")->source, "the local label of 2.5.1+cu124");
  // Labels of no backend's shape say nothing.
  EXPECT_FALSE(BuildFromLocalLabel("2.5.1+g1234abc").has_value());
  EXPECT_FALSE(BuildFromLocalLabel("2.5.1+cu").has_value());
  EXPECT_FALSE(BuildFromLocalLabel("2.5.1+rocm").has_value());
  EXPECT_FALSE(BuildFromLocalLabel("not a version").has_value());
}

}  // namespace
}  // namespace torchdex::installer
