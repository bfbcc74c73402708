// The hand-written scanner of PEP 503 pages (ScanHtmlPage) against libxml2
// (ParseHtmlPageWithLibxml2): wherever the scanner answers, the page is libxml2's; it answers
// for every real page of the fixture index and defers on what it does not model.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "index/page.h"
#include "index/page_internal.h"

namespace torchdex::index {
namespace {

constexpr std::string_view kUrl = "https://download.pytorch.org/whl/cu128/torch/";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The scanner's page, which must be libxml2's; nullopt when it defers.
std::optional<IndexPage> ScanAndCompare(std::string_view html,
                                        std::size_t bound = kAnyNumberOfAnchors) {
  auto scanned = ScanHtmlPage(html, kUrl, bound);
  auto reference = ParseHtmlPageWithLibxml2(html, kUrl, bound);
  if (scanned) {
    EXPECT_TRUE(reference.ok()) << html;
    if (reference.ok()) {
      EXPECT_TRUE(*scanned == *reference) << html;
    }
  }
  auto parsed = ParseHtmlPage(html, kUrl, bound);
  EXPECT_EQ(parsed.ok(), reference.ok()) << html;
  if (parsed.ok() && reference.ok()) {
    EXPECT_TRUE(*parsed == *reference) << html;
  }
  return scanned;
}

TEST(HtmlScanTest, AnswersForEveryRealPageOfTheFixtureIndexAsLibxml2Does) {
  const std::filesystem::path root = std::string(TORCHDEX_FIXTURES_DIR) + "/pytorch-index";
  int answered = 0;
  int anchors = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".html") continue;
    const std::string html = ReadFile(entry.path());
    const bool error_page = entry.path().parent_path().filename() == "errors";
    auto scanned = ScanAndCompare(html);
    // Index pages are the scanner's to read; the error pages (a Cloudflare page with scripts)
    // are libxml2's.
    EXPECT_EQ(scanned.has_value(), !error_page)
        << entry.path() << ": deferred at line " << detail::scan_deferred_line << ", offset "
        << detail::scan_deferred_offset;
    if (scanned) {
      ++answered;
      anchors += static_cast<int>(scanned->anchors.size());
      auto bounded = ScanAndCompare(html, 3);
      EXPECT_EQ(bounded.has_value(), !error_page) << entry.path();
    }
  }
  EXPECT_GE(answered, 85);
  EXPECT_GT(anchors, 10000);
}

TEST(HtmlScanTest, DecodesTheEntitiesOfAttributesAndText) {
  auto page = ScanAndCompare(
      "<a href=\"x-1.0.tar.gz?a=1&amp;b=2&c=3&d\" data-requires-python=\"&gt;=3.9,&lt;4\" "
      "data-yanked=\"&quot;bad&quot; &apos;build&apos;\">x&#65;&#x42;&#X43; &amp;&lt;&gt;</a>");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  ASSERT_EQ(page->anchors.size(), 1u);
  const Anchor& anchor = page->anchors[0];
  EXPECT_EQ(anchor.url, "https://download.pytorch.org/whl/cu128/torch/x-1.0.tar.gz?a=1&b=2&c=3&d");
  EXPECT_EQ(anchor.requires_python, ">=3.9,<4");
  EXPECT_EQ(anchor.yanked, std::optional<std::string>("\"bad\" 'build'"));
  EXPECT_EQ(anchor.text, "xABC &<>");
}

TEST(HtmlScanTest, ReadsTagsAndAttributesInAnyCaseQuotedOrNot) {
  auto page = ScanAndCompare(
      "<!doctype HTML>\n<HTML lang=en><HEAD><META charset=utf-8><META NAME='pypi:repository-"
      "version' CONTENT=1.1><TITLE>Links</TITLE></HEAD>\n<BODY><H1>Links for x</H1>\n"
      "<A HREF=/x-1-py3-none-any.whl#sha256=" +
      std::string(64, 'A') +
      " DATA-CORE-METADATA = 'sha256=CD' data-yanked>x-1-py3-none-any.whl</A ><BR>\n"
      "<a href=y.whl data-dist-info-metadata=true />\n</BODY></HTML><!--TIMESTAMP 1-->");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_EQ(page->shape, PageShape::kPypiCopy);
  EXPECT_EQ(page->repository_version, "1.1");
  EXPECT_EQ(page->heading, "x");
  ASSERT_EQ(page->anchors.size(), 2u);
  EXPECT_EQ(page->anchors[0].url, "https://download.pytorch.org/x-1-py3-none-any.whl");
  EXPECT_EQ(page->anchors[0].sha256, std::string(64, 'a'));
  EXPECT_EQ(page->anchors[0].metadata_sha256, "cd");
  EXPECT_EQ(page->anchors[0].yanked, std::optional<std::string>(""));
  // An unquoted value runs to '>' or a blank; "/>" closes the anchor at once.
  EXPECT_TRUE(page->anchors[1].has_metadata);
  EXPECT_EQ(page->anchors[1].text, "");
}

TEST(HtmlScanTest, ReadsNothingAfterTheDocumentIsClosedAsLibxml2) {
  auto page = ScanAndCompare(
      "<html><body><a href=a.whl>a</a></body></html>\n<a href=b.whl>b</a>");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_EQ(page->anchors.size(), 1u);
  // An end tag before anything is open closes the document too.
  page = ScanAndCompare("</a><a href=a.whl>a</a>");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_TRUE(page->anchors.empty());
  // ... but not an end tag whose element is not open, or </body>.
  page = ScanAndCompare("<a href=a.whl>a</a></h1></body><a href=b.whl>b</a>");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_EQ(page->anchors.size(), 2u);
}

TEST(HtmlScanTest, KeepsTheAnchorBoundAsLibxml2) {
  const std::string html =
      "<h1>Links for x</h1><a href=a>a</a><a href=b>b</a><a href=c>c</a><h1>!</h1>";
  auto page = ScanAndCompare(html, 2);
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_EQ(page->anchors.size(), 2u);
  EXPECT_TRUE(page->more_anchors);
  EXPECT_EQ(page->heading, "x!");
  page = ScanAndCompare(html, 3);
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_FALSE(page->more_anchors);
}

TEST(HtmlScanTest, DefersOnWhatItDoesNotModel) {
  for (const std::string& html : {
           std::string("<a href=a>a<b>b</b></a>"),           // markup inside an anchor
           std::string("<h1>x<a href=a>a</a></h1>"),         // an anchor inside h1
           std::string("<a href=\"a>a</a>"),                 // an attribute never closed
           std::string("<a href=a>a</a><!-- no end"),        // a comment never closed
           std::string("<a href=a>a</a><!-- x --!>"),        // closed the WHATWG way
           std::string("<a href=a>&nbsp;</a>"),              // another named entity
           std::string("<a href=a>&#;</a>"),                 // a reference without digits
           std::string("<a href=a>&#65</a>"),                // a reference without ';'
           std::string("<a href=a>&#0;</a>"),                // not a character
           std::string("<a href=a>caf\xc3\xa9</a>"),         // not ASCII
           std::string("<a href=a>a\rb</a>"),                // carriage return
           std::string("<a name=top>x</a>"),                 // an anchor that is no link
           std::string("<meta charset=latin1><a href=a>a</a>"),
           std::string("<meta http-equiv=Content-Type content='text/html'>"),
           std::string("<script>var a = '<a href=x>';</scripts>"),
           std::string("<base href=https://elsewhere/><a href=a>a</a>"),
           std::string("text before any tag<a href=a>a</a>"),
           std::string("<html><html><a href=a>a</a>"),       // a second html
           std::string("<body><body><a href=a>a</a>"),
           std::string("<meta name=x><head><a href=a>a</a>"),  // a head after an implied one
           std::string("<a href=a>a</a><a href=b"),          // a tag never closed
           std::string("<a href=a / x>a</a>"),               // a bogus attribute
           std::string("<a href=a>a</a> < b"),               // a '<' that starts no tag
           std::string("<?php echo 1 ?><a href=a>a</a>"),
           std::string(""),
       }) {
    SCOPED_TRACE(html);
    // Empty input is libxml2's too (no anchors either way); the rest defers.
    EXPECT_EQ(ScanAndCompare(html).has_value(), html.empty());
  }
}

TEST(HtmlScanTest, AScriptIsRawTextUpToItsEndTag) {
  auto page = ScanAndCompare(
      "<a href=a>a</a><script>var a = '<a href=x>x</a></b>';</SCRIPT><a href=b>b</a>");
  ASSERT_TRUE(page.has_value());
  ASSERT_EQ(page->anchors.size(), 2u);
  EXPECT_EQ(page->anchors[1].text, "b");
}

TEST(HtmlScanTest, WhitespaceAndCommentsBetweenTagsAreFine) {
  auto page = ScanAndCompare(
      "  <!-- a -- b ---->\n<!DOCTYPE html>\n<!---->\n<html>\n  <head>\n    <title> Package "
      "Index </title>\n  </head>\n  <body>\n    text in the body &nbsp; is nobody's\n"
      "    <a href=\"a\">  a\n b  </a><br />\n  </body>\n</html>\n");
  ASSERT_TRUE(page.has_value()) << "deferred at line " << detail::scan_deferred_line
                                << ", offset " << detail::scan_deferred_offset;
  EXPECT_EQ(page->shape, PageShape::kNvidiaCopy);
  ASSERT_EQ(page->anchors.size(), 1u);
  EXPECT_EQ(page->anchors[0].text, "a\n b");
}

}  // namespace
}  // namespace torchdex::index
