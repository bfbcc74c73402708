#include "index/page.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "index/url.h"

namespace torchdex::index {
namespace {

const std::string kFixtures = std::string(TORCHDEX_FIXTURES_DIR) + "/pytorch-index/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

IndexPage Parse(const std::string& fixture, const std::string& url) {
  auto page = ParseHtmlPage(ReadFile(kFixtures + fixture), url);
  EXPECT_TRUE(page.ok()) << fixture;
  return page.ok() ? page.value() : IndexPage();
}

// The manifest (written when the fixtures were made, with its own counting) says how many
// anchors each page holds, how many carry each attribute and which hosts they point at.
// Every real page must parse to exactly those numbers.
TEST(PageTest, EveryFixturePageMatchesTheManifestCounts) {
  const nlohmann::json manifest = nlohmann::json::parse(ReadFile(kFixtures + "manifest.json"));
  int pages = 0;
  int anchors = 0;
  for (const nlohmann::json& entry : manifest.at("files")) {
    const std::string file = entry.at("file");
    if (!file.ends_with(".html") || file.starts_with("errors/")) continue;
    const std::string page_url = "http://127.0.0.1:8080" + entry.at("url_path").get<std::string>();
    const IndexPage page = Parse(file, page_url);
    SCOPED_TRACE(file);
    ++pages;
    anchors += static_cast<int>(page.anchors.size());
    EXPECT_EQ(page.anchors.size(), entry.at("anchors").get<std::size_t>());
    std::size_t sha = 0, metadata = 0, requires_python = 0, yanked = 0, upload = 0;
    std::map<std::string, int> hosts;
    for (const Anchor& a : page.anchors) {
      sha += !a.sha256.empty();
      metadata += a.has_metadata;
      requires_python += !a.requires_python.empty();
      yanked += a.yanked.has_value();
      upload += !a.upload_time.empty();
      const std::string origin(UrlOrigin(a.url));
      ++hosts[origin == "http://127.0.0.1:8080" ? "local" : origin];
    }
    EXPECT_EQ(sha, entry.at("href_sha256_fragment").get<std::size_t>());
    EXPECT_EQ(metadata, std::max(entry.at("data_core_metadata").get<std::size_t>(),
                                 entry.at("data_dist_info_metadata").get<std::size_t>()));
    EXPECT_EQ(requires_python, entry.at("data_requires_python").get<std::size_t>());
    EXPECT_EQ(yanked, entry.at("data_yanked").get<std::size_t>());
    EXPECT_EQ(upload, entry.at("data_upload_time").get<std::size_t>());
    std::map<std::string, int> expected_hosts;
    for (const auto& [host, count] : entry.at("hosts").items()) {
      const bool relative = host == "(relative)" || host == "(root-relative)";
      expected_hosts[relative ? "local" : host] += count.get<int>();
    }
    EXPECT_EQ(hosts, expected_hosts);
  }
  // 89 HTML pages, 15,668 anchors: the manifest's totals (its error documents hold none).
  EXPECT_EQ(pages, 89);
  EXPECT_EQ(anchors, 15668);
}

TEST(PageTest, ReadsAGeneratedProjectPage) {
  const IndexPage page = Parse("whl/cu128/torch/index.html", "https://download.pytorch.org/whl/cu128/torch/");
  EXPECT_EQ(page.shape, PageShape::kGenerated);
  EXPECT_EQ(page.heading, "torch");
  ASSERT_FALSE(page.anchors.empty());
  const Anchor& first = page.anchors.front();
  EXPECT_EQ(first.url,
            "https://download.pytorch.org/whl/cu128/"
            "torch-2.10.0%2Bcu128-cp310-cp310-manylinux_2_28_aarch64.whl");
  EXPECT_EQ(first.text, "torch-2.10.0+cu128-cp310-cp310-manylinux_2_28_aarch64.whl");
  EXPECT_EQ(first.sha256, "e186f57ef1de1aa877943259819468fc6f27efb583b4a91f9215ada7b7f4e6cc");
  EXPECT_TRUE(first.has_metadata);
  EXPECT_EQ(first.metadata_sha256,
            "7f56e1b49211bfcfe45a8c7df42d96a054f69a96fbf6bc4f1b6b6fe8d3f097a7");
}

TEST(PageTest, TellsTheThreeProducersApart) {
  EXPECT_EQ(Parse("whl/cpu/filelock/index.html", "https://x/whl/cpu/filelock/").shape,
            PageShape::kPypiCopy);
  const IndexPage nvidia =
      Parse("whl/cu128/nvidia-cudnn-cu12/index.html", "https://x/whl/cu128/nvidia-cudnn-cu12/");
  EXPECT_EQ(nvidia.shape, PageShape::kNvidiaCopy);
  EXPECT_EQ(nvidia.heading, "");
  EXPECT_EQ(UrlHost(nvidia.anchors.front().url), "pypi.nvidia.com");
  const IndexPage list = Parse("whl/cu128/index.html", "https://x/whl/cu128/");
  EXPECT_EQ(list.shape, PageShape::kGenerated);
  EXPECT_EQ(list.anchors.front().url.substr(0, 19), "https://x/whl/cu128");
}

TEST(PageTest, TheCloudflareScriptAddsNoLinks) {
  // eras/2026-01-20: a bot-challenge <script> injected before </body>.
  const std::string html = ReadFile(kFixtures + "eras/2026-01-20/whl/cu128/index.html");
  ASSERT_NE(html.find("<script>"), std::string::npos);
  const IndexPage page = Parse("eras/2026-01-20/whl/cu128/index.html", "https://x/whl/cu128/");
  for (const Anchor& a : page.anchors) {
    EXPECT_EQ(a.url.find("document"), std::string::npos) << a.url;
    EXPECT_EQ(a.url.find(';'), std::string::npos) << a.url;
    EXPECT_TRUE(a.url.ends_with("/")) << a.url;
  }
}

TEST(PageTest, DecodesEntitiesAndKeepsYankedReasons) {
  const std::string html =
      "<html><body><h1>Links for networkx</h1>\n"
      "<a href=\"/whl/networkx-3.4.2-py3-none-any.whl#sha256="
      "ABCDEF01234567890123456789012345678901234567890123456789abcdefab\" "
      "data-requires-python=\"&gt;=3.10\">networkx-3.4.2-py3-none-any.whl</a><br>\n"
      "<a href=\"x-1.0.tar.gz\" data-yanked=\"broken &amp; bad\">x-1.0.tar.gz</a><br />\n"
      "<a href=\"y-1.0.tar.gz\" data-yanked>y-1.0.tar.gz</a>\n"
      "<a name=\"no-href\">ignored</a>\n"
      "<script>var s = '<a href=\"evil/\">evil</a>';</script>\n"
      "</body></html><!--TIMESTAMP 1-->";
  auto page = ParseHtmlPage(html, "https://h/whl/networkx/");
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->anchors.size(), 3u);
  EXPECT_EQ(page->anchors[0].requires_python, ">=3.10");
  EXPECT_EQ(page->anchors[0].sha256,  // lower case
            "abcdef01234567890123456789012345678901234567890123456789abcdefab");
  EXPECT_EQ(page->anchors[0].url, "https://h/whl/networkx-3.4.2-py3-none-any.whl");
  EXPECT_EQ(page->anchors[1].url, "https://h/whl/networkx/x-1.0.tar.gz");
  EXPECT_EQ(page->anchors[1].yanked, std::optional<std::string>("broken & bad"));
  EXPECT_EQ(page->anchors[2].yanked, std::optional<std::string>(""));
  EXPECT_FALSE(page->anchors[0].yanked.has_value());
}

TEST(PageTest, BinaryGarbageIsAnErrorNamingThePage) {
  const std::string garbage("\x89PNG\r\n\x1a\n\0\0\0", 11);
  auto page = ParseHtmlPage(garbage, "https://h/whl/cu128/torch/");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.error().message.find("https://h/whl/cu128/torch/"), std::string::npos);
}

// Issue 13 item 27: bytes that are not a page are an error, not an empty page: by their
// Content-Type (as pip skips them) and by their control bytes.
TEST(PageTest, WhatIsNotAPageIsAnError) {
  const std::string html = "<a href=\"x-1.0.tar.gz\">x</a>";
  for (const char* type : {"text/html", "text/html; charset=utf-8", " TEXT/HTML ", "",
                           "application/vnd.pypi.simple.v1+html", "application/xhtml+xml"}) {
    auto page = ParsePage(html, type, "https://h/x/");
    ASSERT_TRUE(page.ok()) << type << ": " << page.error().message;
    EXPECT_EQ(page->anchors.size(), 1u) << type;
  }
  auto octets = ParsePage(html, "application/octet-stream", "https://h/x/");
  ASSERT_FALSE(octets.ok());
  EXPECT_NE(octets.error().message.find("https://h/x/ is not an index page: Content-Type "
                                        "application/octet-stream"),
            std::string::npos)
      << octets.error().message;
  EXPECT_FALSE(ParsePage(html, "image/png", "https://h/x/").ok());
  EXPECT_FALSE(ParsePage("{}", "application/json", "https://h/x/").ok());
  for (const std::string& garbage :
       {std::string("<a href=x>\x01\x02</a>"), std::string("\x1b[31m"), std::string("ok\x7f")}) {
    auto page = ParseHtmlPage(garbage, "https://h/x/");
    ASSERT_FALSE(page.ok()) << garbage;
    EXPECT_NE(page.error().message.find("binary data"), std::string::npos);
  }
  EXPECT_TRUE(ParseHtmlPage("<a href=x>\t\n\f\r</a>", "https://h/x/").ok());
}

// Issue 13 item 24: a page read with a bound keeps that many anchors and says there were more
// (the crawler fails such a page); the rest is not kept, in HTML or in JSON.
TEST(PageTest, AnAnchorBoundKeepsThatManyAndSaysSo) {
  const std::string html = "<a href=\"a/\">a</a><a href=\"b/\">b</a><a href=\"c/\">c</a>";
  auto page = ParseHtmlPage(html, "https://h/x/", 2);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->anchors.size(), 2u);
  EXPECT_TRUE(page->more_anchors);
  page = ParseHtmlPage(html, "https://h/x/", 3);
  EXPECT_EQ(page->anchors.size(), 3u);
  EXPECT_FALSE(page->more_anchors);

  const std::string json = R"({"meta": {"api-version": "1.1", "x": [1, 2, 3]}, "files": [
      {"url": "a.whl"}, {"url": "b.whl"}, {"url": "c.whl"}], "name": "t"})";
  auto files = ParseJsonPage(json, "https://h/simple/t/", 2);
  ASSERT_TRUE(files.ok()) << files.error().message;
  EXPECT_EQ(files->anchors.size(), 2u);
  EXPECT_TRUE(files->more_anchors);
  EXPECT_EQ(files->heading, "t");
  files = ParseJsonPage(json, "https://h/simple/t/", 3);
  EXPECT_EQ(files->anchors.size(), 3u);
  EXPECT_FALSE(files->more_anchors);
  auto projects =
      ParseJsonPage(R"({"projects": [{"name": "a"}, {"name": "b"}]})", "https://h/simple/", 1);
  ASSERT_TRUE(projects.ok());
  EXPECT_EQ(projects->anchors.size(), 1u);
  EXPECT_TRUE(projects->more_anchors);
}

TEST(PageTest, EmptyAndNonsensePagesHaveNoAnchors) {
  for (const char* body : {"", "not html at all", "<html><body></body></html>", "<<<>>>"}) {
    auto page = ParseHtmlPage(body, "https://h/");
    ASSERT_TRUE(page.ok()) << body;
    EXPECT_TRUE(page->anchors.empty()) << body;
  }
}

TEST(PageTest, ReadsPep691Json) {
  const std::string json = R"({"meta": {"api-version": "1.1"}, "name": "torch", "files": [
    {"filename": "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
     "url": "../../cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl",
     "hashes": {"sha256": "AA11000000000000000000000000000000000000000000000000000000000000"}, "core-metadata": {"sha256": "BB22"},
     "requires-python": ">=3.9", "yanked": "bad build", "upload-time": "2024-10-29T17:00:00Z"},
    {"filename": "torch-2.5.0.tar.gz", "url": "https://files.example/torch-2.5.0.tar.gz",
     "hashes": {}, "dist-info-metadata": true, "yanked": false}]})";
  auto page = ParsePage(json, "application/vnd.pypi.simple.v1+json", "https://h/whl/simple/torch/");
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_EQ(page->shape, PageShape::kJson);
  ASSERT_EQ(page->anchors.size(), 2u);
  EXPECT_EQ(page->anchors[0].url, "https://h/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl");
  EXPECT_EQ(page->anchors[0].sha256, "aa11" + std::string(60, '0'));
  EXPECT_EQ(page->anchors[0].metadata_sha256, "bb22");
  EXPECT_EQ(page->anchors[0].yanked, std::optional<std::string>("bad build"));
  EXPECT_TRUE(page->anchors[1].has_metadata);
  EXPECT_FALSE(page->anchors[1].yanked.has_value());

  auto bad = ParseJsonPage(R"({"files": [{"filename": "x"}]})", "https://h/p/");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("/files/0"), std::string::npos);
}

// Found by html_page_fuzz: an anchor closed implicitly kept the spaces around its text.
TEST(PageTest, TrimsTheTextOfAnchorsClosedImplicitly) {
  for (const char* html : {"<a href=\"x\"> a <a href=\"y\"> b </a>", "<a href=\"z\">  c  ",
                           "<p><a href=\"x\"> a </p><a href=\"y\"> b "}) {
    auto page = ParseHtmlPage(html, "https://h/p/");
    ASSERT_TRUE(page.ok()) << html;
    ASSERT_FALSE(page->anchors.empty()) << html;
    for (const Anchor& anchor : page->anchors) {
      ASSERT_FALSE(anchor.text.empty()) << html;
      EXPECT_NE(anchor.text.front(), ' ') << html << " -> '" << anchor.text << "'";
      EXPECT_NE(anchor.text.back(), ' ') << html << " -> '" << anchor.text << "'";
    }
  }
}

// Found by json_page_fuzz: a project name in a JSON list page went into its URL unescaped, so
// "a#b" became a fragment and "a/b" two path segments.
TEST(PageTest, JsonListNamesStayOnePathSegment) {
  auto page = ParseJsonPage(
      R"({"projects": [{"name": "torch"}, {"name": "torchvisi#on"}, {"name": "a/b?c"},
                        {"name": ".."}, {"name": "typing_extensions.x"}]})",
      "https://h/whl/simple/");
  ASSERT_TRUE(page.ok()) << page.error().message;
  ASSERT_EQ(page->anchors.size(), 5u);
  EXPECT_EQ(page->anchors[0].url, "https://h/whl/simple/torch/");
  EXPECT_EQ(page->anchors[1].url, "https://h/whl/simple/torchvisi%23on/");
  EXPECT_EQ(page->anchors[1].text, "torchvisi#on");
  EXPECT_EQ(page->anchors[2].url, "https://h/whl/simple/a%2Fb%3Fc/");
  EXPECT_EQ(page->anchors[3].url, "https://h/whl/simple/%2E%2E/");
  EXPECT_EQ(page->anchors[4].url, "https://h/whl/simple/typing_extensions.x/");
}

TEST(UrlTest, ResolvesEveryKindOfReference) {
  const std::string base = "https://download.pytorch.org/whl/cu128/torch/";
  EXPECT_EQ(ResolveUrl(base, "/whl/cu128/torch-2.10.0%2Bcu128.whl#sha256=ab"),
            "https://download.pytorch.org/whl/cu128/torch-2.10.0%2Bcu128.whl#sha256=ab");
  EXPECT_EQ(ResolveUrl(base, "https://download-r2.pytorch.org/whl/x.whl"),
            "https://download-r2.pytorch.org/whl/x.whl");
  EXPECT_EQ(ResolveUrl(base, "//pypi.nvidia.com/a/b.whl"), "https://pypi.nvidia.com/a/b.whl");
  EXPECT_EQ(ResolveUrl(base, "x.whl"), "https://download.pytorch.org/whl/cu128/torch/x.whl");
  EXPECT_EQ(ResolveUrl(base, "../x.whl"), "https://download.pytorch.org/whl/cu128/x.whl");
  EXPECT_EQ(ResolveUrl(base, "../../../../x.whl"), "https://download.pytorch.org/x.whl");
  EXPECT_EQ(ResolveUrl("http://127.0.0.1:8080/whl/", "cpu/"), "http://127.0.0.1:8080/whl/cpu/");
  EXPECT_EQ(ResolveUrl("http://h/whl", "cpu/"), "http://h/cpu/");
  EXPECT_EQ(ResolveUrl("http://h/a/b?q=1", "#frag"), "http://h/a/b?q=1#frag");
  EXPECT_EQ(ResolveUrl("http://h/a/b", "./c/./d/../e"), "http://h/a/c/e");
}

// A scheme starts with a letter (RFC 3986 §3.1): "2.5:x" and "+x:y" are relative paths.
TEST(UrlTest, FindAnyOfIsFindFirstOf) {
  const std::string_view url = "https://h/whl/x.whl?q#sha256=ab&md5=cd";
  for (std::string_view set : {"/?#", "#&", "?", "z", ""}) {
    for (std::size_t from = 0; from <= url.size() + 1; ++from) {
      EXPECT_EQ(FindAnyOf(url, set, from), url.find_first_of(set, from)) << set << " " << from;
    }
  }
  EXPECT_EQ(FindAnyOf("", "/"), std::string_view::npos);
}

TEST(UrlTest, AReferenceStartingWithADigitHasNoScheme) {
  EXPECT_EQ(ResolveUrl("https://h/whl/torch/", "2.5:x"), "https://h/whl/torch/2.5:x");
  EXPECT_EQ(ResolveUrl("https://h/whl/torch/", "+x:y"), "https://h/whl/torch/+x:y");
  EXPECT_EQ(ResolveUrl("https://h/whl/torch/", "HTTP://other/x"), "HTTP://other/x");
  EXPECT_EQ(UrlOrigin("2x://h/a"), "");
}

TEST(UrlTest, TakesUrlsApart) {
  const std::string url = "https://user@host:8443/whl/cu128/x.whl?q=1#sha256=ab";
  EXPECT_EQ(UrlOrigin(url), "https://user@host:8443");
  EXPECT_EQ(UrlHost(url), "host:8443");
  EXPECT_EQ(UrlPath(url), "/whl/cu128/x.whl");
  EXPECT_EQ(UrlFragment(url), "sha256=ab");
  EXPECT_EQ(StripFragment(url), "https://user@host:8443/whl/cu128/x.whl?q=1");
  EXPECT_EQ(UrlHost("/relative/path"), "");
  EXPECT_EQ(UrlFilename("https://h/whl/cu124/torch-2.5.1%2Bcu124%2b%zz%4?q#f"), "torch-2.5.1+cu124+%zz%4");
}

// Issue 13 item 25: the hash of a link as pip reads it (pip's LinkHash regex: the first
// "[#&](sha512|sha384|sha256|sha224|sha1|md5)=([^&]*)"), checked for its algorithm's length.
TEST(PageTest, ReadsTheLinkHashAsPipDoes) {
  const std::string sha(64, 'a'), md5(32, 'B');
  const std::string html = "<a href=\"x.whl#sha256=" + sha + "\">1</a>" +
                           "<a href=\"x.whl#sha256=zzzz\">2</a>" +
                           "<a href=\"x.whl#md5=" + md5 + "\">3</a>" +
                           "<a href=\"x.whl#egg=x&sha256=" + sha + "\">4</a>" +
                           "<a href=\"x.whl#sha256=" + sha.substr(1) + "\">5</a>" +
                           "<a href=\"x.whl#SHA256=" + sha + "\">6</a>" +
                           "<a href=\"x.whl#egg=x\">7</a>";
  auto page = ParseHtmlPage(html, "https://h/whl/cu124/torch/");
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->anchors.size(), 7u);
  const auto& a = page->anchors;
  EXPECT_EQ(a[0].sha256, sha);
  EXPECT_EQ(a[0].hash, "sha256=" + sha);
  EXPECT_FALSE(a[0].hash_malformed);
  EXPECT_EQ(a[1].sha256, "");  // not shown as a sha256
  EXPECT_EQ(a[1].hash, "sha256=zzzz");
  EXPECT_TRUE(a[1].hash_malformed);
  EXPECT_EQ(a[2].sha256, "");
  EXPECT_EQ(a[2].hash, "md5=" + std::string(32, 'b'));
  EXPECT_FALSE(a[2].hash_malformed);
  EXPECT_EQ(a[3].sha256, sha);
  EXPECT_EQ(a[3].url, "https://h/whl/cu124/torch/x.whl");
  EXPECT_TRUE(a[4].hash_malformed);  // 63 digits
  EXPECT_EQ(a[5].hash, "");          // pip matches the names in lower case only
  EXPECT_EQ(a[6].hash, "");

  auto json = ParseJsonPage(R"({"files": [
      {"url": "a.whl", "hashes": {"sha256": ")" + sha + R"("}},
      {"url": "b.whl", "hashes": {"md5": ")" + md5 + R"("}},
      {"url": "c.whl", "hashes": {"sha256": "nothex"}}]})",
                            "https://h/simple/torch/");
  ASSERT_TRUE(json.ok()) << json.error().message;
  EXPECT_EQ(json->anchors[0].sha256, sha);
  EXPECT_EQ(json->anchors[1].hash, "md5=" + std::string(32, 'b'));
  EXPECT_EQ(json->anchors[2].sha256, "");
  EXPECT_TRUE(json->anchors[2].hash_malformed);
}

// Issue 13 item 20: for http and https the authority ends at the first '/', '\\', '?' or '#',
// as WHATWG URL parsing and urllib3 (so pip) read it: pip connects to 0.0.0.0 here, never to the
// 127.0.0.1 after the '@' that an RFC 3986 reading (and libcurl) would take.
TEST(UrlTest, ABackslashEndsTheAuthorityAsPipReadsIt) {
  const std::string url = "http://0.0.0.0:8080\\@127.0.0.1:8080/whl/x.whl";
  EXPECT_EQ(UrlOrigin(url), "http://0.0.0.0:8080");
  EXPECT_EQ(UrlHost(url), "0.0.0.0:8080");
  EXPECT_EQ(UrlPath(url), "\\@127.0.0.1:8080/whl/x.whl");
  EXPECT_TRUE(HasAmbiguousAuthority(url));
  EXPECT_EQ(UrlHost("HTTPS://evil.example\\@download.pytorch.org/"), "evil.example");
  EXPECT_EQ(UrlHost("http://a@b@127.0.0.1:1/x"), "127.0.0.1:1");  // the last '@', as both read it
  EXPECT_FALSE(
      HasAmbiguousAuthority("http://user:pw@127.0.0.1:1/a\\b?c\\d"));  // only the authority
  EXPECT_FALSE(HasAmbiguousAuthority("https://download.pytorch.org/whl/"));
  // Not a special scheme: the backslash is part of the authority, as WHATWG keeps it.
  EXPECT_EQ(UrlHost("git+ssh://h\\@x/y"), "x");
}

}  // namespace
}  // namespace torchdex::index
