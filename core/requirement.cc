// PEP 508 requirements and environment markers, following packaging 26.x (_tokenizer.py,
// _parser.py, markers.py, requirements.py), which pip vendors; tests/core/differential checks
// it case by case. Where packaging is wrong by the PEP we still follow it, as pip does, and say
// so where it happens (names ending in '_', how each side of a comparison is read, orderings
// of strings). What is still ours:
//  - Versions in a requirement run to whitespace, ',', ';' or ')' and must then parse as a
//    whole ("torch>=2.0abc" is an error, not ">=2.0a" followed by garbage); "===" ends at ','
//    too (packaging's token runs over it).
//  - Every `extra` comparison is normalised in the normal form, not only the first one, and
//    "((a or b))" nested inside an expression keeps its parentheses (packaging drops them).
//  - "===" needs an operand (packaging accepts "foo===").
//  - Quoted strings are taken as written; packaging runs them through ast.literal_eval, which
//    only differs for backslashes (a NUL is refused by both).
#include "core/requirement.h"

#include "core/spelling.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/name.h"

namespace torchdex::core {

namespace {

enum class MarkerOp : std::uint8_t {
  kLess,
  kLessEqual,
  kEqual,
  kNotEqual,
  kGreaterEqual,
  kGreater,
  kCompatible,
  kArbitrary,
  kIn,
  kNotIn,
};

enum class BoolOp : std::uint8_t { kAnd, kOr };

std::string_view MarkerOpText(MarkerOp op) {
  switch (op) {
    case MarkerOp::kLess:
      return "<";
    case MarkerOp::kLessEqual:
      return "<=";
    case MarkerOp::kEqual:
      return "==";
    case MarkerOp::kNotEqual:
      return "!=";
    case MarkerOp::kGreaterEqual:
      return ">=";
    case MarkerOp::kGreater:
      return ">";
    case MarkerOp::kCompatible:
      return "~=";
    case MarkerOp::kArbitrary:
      return "===";
    case MarkerOp::kIn:
      return "in";
    case MarkerOp::kNotIn:
      return "not in";
  }
  return "";
}

bool IsVersionOp(MarkerOp op) { return op != MarkerOp::kIn && op != MarkerOp::kNotIn; }

// The version operators, longest first so that "===" is not read as "==" and "<=" not as "<".
constexpr std::array<std::pair<std::string_view, MarkerOp>, 8> kSymbolOps = {{
    {"===", MarkerOp::kArbitrary},
    {"==", MarkerOp::kEqual},
    {"~=", MarkerOp::kCompatible},
    {"!=", MarkerOp::kNotEqual},
    {"<=", MarkerOp::kLessEqual},
    {">=", MarkerOp::kGreaterEqual},
    {"<", MarkerOp::kLess},
    {">", MarkerOp::kGreater},
}};

// PEP 508's marker variables and the legacy spellings packaging still accepts, with the name
// each one is normalised to.
constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kMarkerVariables = {{
    {"python_version", "python_version"},
    {"python_full_version", "python_full_version"},
    {"os_name", "os_name"},
    {"sys_platform", "sys_platform"},
    {"platform_release", "platform_release"},
    {"platform_system", "platform_system"},
    {"platform_version", "platform_version"},
    {"platform_machine", "platform_machine"},
    {"platform_python_implementation", "platform_python_implementation"},
    {"implementation_name", "implementation_name"},
    {"implementation_version", "implementation_version"},
    {"extra", "extra"},
    // PEP 751's set-valued variables of lock files; packaging 26 reads them everywhere, and a
    // MarkerEnvironment has no value for them (evaluating one is an error).
    {"extras", "extras"},
    {"dependency_groups", "dependency_groups"},
    {"os.name", "os_name"},
    {"sys.platform", "sys_platform"},
    {"platform.version", "platform_version"},
    {"platform.machine", "platform_machine"},
    {"platform.python_implementation", "platform_python_implementation"},
    {"python_implementation", "platform_python_implementation"},
}};

std::optional<std::string_view> CanonicalVariable(std::string_view word) {
  for (const auto& [spelling, canonical] : kMarkerVariables) {
    if (spelling == word) return canonical;
  }
  return std::nullopt;
}

// "did you mean" for a misspelt variable: the closest canonical name within two edits.
std::optional<std::string_view> SuggestVariable(std::string_view word) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;
  for (const auto& [spelling, canonical] : kMarkerVariables) {
    const std::size_t distance = EditDistance(word, spelling);
    if (distance < best_distance) {
      best_distance = distance;
      best = canonical;
    }
  }
  return best;
}

// packaging's WS token is [ \t]+.
bool IsSpace(char c) { return c == ' ' || c == '\t'; }
bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsNameChar(char c) { return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.'; }
// Python's \w for the \b around keywords; bytes of non-ASCII characters count as word
// characters, as the letters they encode do.
bool IsWordChar(char c) {
  return IsAsciiAlnum(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
// A marker variable as written: letters, digits, '_' and the '.' of the legacy spellings.
bool IsVariableChar(char c) { return IsWordChar(c) || c == '.'; }

std::string Quote(std::string_view value) {
  // Double quotes as packaging prints them, unless the value holds one (packaging would print
  // something it cannot read back).
  const char quote = value.find('"') == std::string_view::npos ? '"' : '\'';
  std::string out;
  out.reserve(value.size() + 2);
  out.push_back(quote);
  out.append(value);
  out.push_back(quote);
  return out;
}

// A side of a comparison: a variable (by its canonical name) or a literal string.
struct MarkerOperand {
  bool is_variable = false;
  std::string text;
};

struct MarkerComparison {
  MarkerOperand lhs;
  MarkerOp op = MarkerOp::kEqual;
  MarkerOperand rhs;
};

}  // namespace

// One level of a marker, as packaging keeps it: atoms joined by "and"/"or" as written, where
// an atom is a comparison or a parenthesised expression. `joins[i]` sits between atoms i and
// i + 1; "and" binds tighter than "or" when evaluating.
struct Marker::Node {
  using Atom = std::variant<MarkerComparison, std::shared_ptr<const Node>>;
  std::vector<Atom> atoms;
  std::vector<BoolOp> joins;
};

namespace {

using Node = Marker::Node;

// Deep enough for any real marker, shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxMarkerDepth = 64;

// A cursor over one line with the first error it found. `what` names the thing being parsed
// ("requirement", "marker") for messages; columns are 1-based and count bytes.
class Parser {
 public:
  Parser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  std::size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  std::string_view Rest() const { return text_.substr(pos_); }
  std::string_view Slice(std::size_t begin, std::size_t end) const {
    return text_.substr(begin, end - begin);
  }

  bool SkipSpace() {
    const std::size_t start = pos_;
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
    return pos_ > start;
  }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  // A keyword as packaging's \bword\b matches it.
  bool ConsumeKeyword(std::string_view keyword) {
    if (!Rest().starts_with(keyword)) return false;
    const std::size_t end = pos_ + keyword.size();
    if (end < text_.size() && IsWordChar(text_[end])) return false;
    if (pos_ > 0 && IsWordChar(text_[pos_ - 1])) return false;
    pos_ = end;
    return true;
  }
  template <typename Predicate>
  std::string_view ConsumeWhile(Predicate predicate) {
    const std::size_t start = pos_;
    while (!AtEnd() && predicate(text_[pos_])) ++pos_;
    return Slice(start, pos_);
  }
  bool AtSymbolOp() const {
    return std::any_of(kSymbolOps.begin(), kSymbolOps.end(),
                       [&](const auto& entry) { return Rest().starts_with(entry.first); });
  }
  std::optional<MarkerOp> ConsumeSymbolOp() {
    for (const auto& [spelling, op] : kSymbolOps) {
      if (Rest().starts_with(spelling)) {
        pos_ += spelling.size();
        return op;
      }
    }
    return std::nullopt;
  }

  // Records the error (the first one wins) and returns false, for `return Fail(...)`.
  bool Fail(std::string_view message, std::size_t at) {
    if (!error_) {
      // The place comes first, so that a message with a place of its own (a version inside a
      // specifier: "... at column 1") does not read "at column 1 at column 6".
      const std::string where = " at column " + std::to_string(at + 1);
      // Control characters shown as escapes, so a message stays one readable line ('torch\r').
      std::string shown;
      for (char ch : text_) {
        const auto u = static_cast<unsigned char>(ch);
        if (ch == '\r') shown += "\\r";
        else if (ch == '\n') shown += "\\n";
        else if (ch == '\t') shown += "\\t";
        else if (u < 0x20 || u == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          shown += "\\x";
          shown.push_back(kHex[u >> 4]);
          shown.push_back(kHex[u & 15]);
        } else shown.push_back(ch);
      }
      const std::string head = "invalid " + std::string(what_) + " '" + shown + "'";
      // An inner message that ends with a place of its own (a version's) keeps it last.
      const std::size_t inner = message.rfind(" at column ");
      const bool placed = inner != std::string_view::npos &&
                          message.find_first_not_of("0123456789", inner + 11) == std::string_view::npos;
      error_ = placed ? MakeError(head + where + ": " + std::string(message))
                      : MakeError(head + ": " + std::string(message) + where);
    }
    return false;
  }
  std::string Column(std::size_t at) const { return "column " + std::to_string(at + 1); }
  Error TakeError() {
    return error_ ? std::move(*error_) : MakeError("invalid " + std::string(what_));
  }

  // marker = atom (("and" | "or") atom)*
  std::shared_ptr<const Node> ParseMarkerExpression(int depth) {
    auto node = std::make_shared<Node>();
    Node::Atom atom;
    if (!ParseMarkerAtom(depth, &atom)) return nullptr;
    node->atoms.push_back(std::move(atom));
    while (true) {
      BoolOp join;
      if (ConsumeKeyword("and")) {
        join = BoolOp::kAnd;
      } else if (ConsumeKeyword("or")) {
        join = BoolOp::kOr;
      } else {
        break;
      }
      if (!ParseMarkerAtom(depth, &atom)) return nullptr;
      node->joins.push_back(join);
      node->atoms.push_back(std::move(atom));
    }
    return node;
  }

 private:
  // atom = WS? ( "(" WS? marker WS? ")" | comparison ) WS?
  bool ParseMarkerAtom(int depth, Node::Atom* atom) {
    SkipSpace();
    if (Peek() == '(') {
      const std::size_t open = pos_;
      if (depth >= kMaxMarkerDepth) return Fail("parentheses nest too deeply", open);
      ++pos_;
      SkipSpace();
      std::shared_ptr<const Node> inner = ParseMarkerExpression(depth + 1);
      if (inner == nullptr) return false;
      SkipSpace();
      if (!Consume(')')) {
        return Fail("expected ')' (to close the '(' at " + Column(open) + ")", pos_);
      }
      *atom = std::move(inner);
    } else {
      MarkerComparison comparison;
      if (!ParseComparison(&comparison)) return false;
      *atom = std::move(comparison);
    }
    SkipSpace();
    return true;
  }

  // comparison = operand WS? op WS? operand
  bool ParseComparison(MarkerComparison* comparison) {
    if (!ParseOperand(&comparison->lhs)) return false;
    SkipSpace();
    if (!ParseMarkerOp(&comparison->op)) return false;
    SkipSpace();
    if (!ParseOperand(&comparison->rhs)) return false;
    // PEP 685: extras compare normalised, so the normal form shows them normalised.
    // packaging 26 does the same for the name in '"x" in extras' (and dependency_groups).
    const auto names = [](const MarkerOperand& operand) {
      return operand.is_variable && (operand.text == "extra" || operand.text == "extras" ||
                                     operand.text == "dependency_groups");
    };
    if (comparison->lhs.is_variable && comparison->lhs.text == "extra" &&
        !comparison->rhs.is_variable) {
      comparison->rhs.text = NormalizeName(comparison->rhs.text);
    } else if (names(comparison->rhs) && !comparison->lhs.is_variable) {
      comparison->lhs.text = NormalizeName(comparison->lhs.text);
    }
    return true;
  }

  bool ParseOperand(MarkerOperand* operand) {
    const std::size_t start = pos_;
    const char quote = Peek();
    if (!AtEnd() && (quote == '"' || quote == '\'')) {
      const std::size_t close = text_.find(quote, pos_ + 1);
      if (close == std::string_view::npos) {
        return Fail(std::string("unterminated string (no closing ") + quote + ")", start);
      }
      // packaging reads the string with ast.literal_eval, which refuses a NUL byte.
      if (const std::size_t nul = Slice(start + 1, close).find('\0'); nul != std::string_view::npos) {
        return Fail("NUL character in a quoted string", start + 1 + nul);
      }
      operand->is_variable = false;
      operand->text = std::string(Slice(start + 1, close));
      pos_ = close + 1;
      return true;
    }
    const std::string_view word = ConsumeWhile(IsVariableChar);
    if (word.empty()) {
      pos_ = start;
      return Fail("expected a marker variable or a quoted string", start);
    }
    const std::optional<std::string_view> canonical = CanonicalVariable(word);
    if (!canonical) {
      pos_ = start;
      if (!IsAsciiAlnum(word.front()) || (word.front() >= '0' && word.front() <= '9')) {
        return Fail("expected a marker variable or a quoted string, found unquoted '" +
                        std::string(word) + "'",
                    start);
      }
      std::string message = "unknown marker variable '" + std::string(word) + "'";
      if (const auto suggestion = SuggestVariable(word)) {
        message += " (did you mean '" + std::string(*suggestion) + "'?)";
      }
      return Fail(message, start);
    }
    operand->is_variable = true;
    operand->text = std::string(*canonical);
    return true;
  }

  bool ParseMarkerOp(MarkerOp* op) {
    if (ConsumeKeyword("in")) {
      *op = MarkerOp::kIn;
      return true;
    }
    if (ConsumeKeyword("not")) {
      if (!SkipSpace()) return Fail("expected whitespace after 'not'", pos_);
      if (!ConsumeKeyword("in")) return Fail("expected 'in' after 'not'", pos_);
      *op = MarkerOp::kNotIn;
      return true;
    }
    if (const auto symbol = ConsumeSymbolOp()) {
      *op = *symbol;
      return true;
    }
    return Fail("expected a marker operator (<, <=, ==, !=, >=, >, ~=, ===, in, not in)", pos_);
  }

  std::string_view text_;
  std::string_view what_;
  std::size_t pos_ = 0;
  std::optional<Error> error_;
};

// ---- Formatting ----

std::string FormatOperand(const MarkerOperand& operand) {
  return operand.is_variable ? operand.text : Quote(operand.text);
}

std::string FormatNode(const Node& node, bool top);

std::string FormatAtom(const Node::Atom& atom, bool top) {
  if (const auto* comparison = std::get_if<MarkerComparison>(&atom)) {
    return FormatOperand(comparison->lhs) + " " + std::string(MarkerOpText(comparison->op)) + " " +
           FormatOperand(comparison->rhs);
  }
  return FormatNode(*std::get<std::shared_ptr<const Node>>(atom), top);
}

// As packaging's _format_marker: a group of one is printed without parentheses, nested groups
// of several with them.
std::string FormatNode(const Node& node, bool top) {
  if (node.atoms.size() == 1) return FormatAtom(node.atoms.front(), top);
  std::string out;
  for (std::size_t i = 0; i < node.atoms.size(); ++i) {
    if (i > 0) out += node.joins[i - 1] == BoolOp::kAnd ? " and " : " or ";
    out += FormatAtom(node.atoms[i], false);
  }
  return top ? out : "(" + out + ")";
}

// ---- Evaluation ----

struct EvaluationContext {
  const MarkerEnvironment& env;
  std::string_view extra;  // normalised
  const Node& root;        // for messages, printed only when there is an error
};

Error EvaluationError(const EvaluationContext& context, std::string_view message) {
  return MakeError("cannot evaluate marker '" + FormatNode(context.root, true) +
                   "': " + std::string(message));
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// packaging 26's MARKERS_REQUIRING_VERSION: only these compare as versions.
bool IsVersionVariable(std::string_view name) {
  return name == "python_version" || name == "python_full_version" ||
         name == "implementation_version" || name == "platform_release";
}

Expected<std::string> Lookup(const EvaluationContext& context, const std::string& name) {
  if (name == "extra") return std::string(context.extra);
  const auto found = context.env.values.find(name);
  if (found == context.env.values.end()) {
    return EvaluationError(context, "the environment has no value for '" + name + "'");
  }
  return found->second;
}

// packaging 26's _eval_op. For a version variable whose other side makes a specifier with the
// operator, the specifier decides (pre-releases allowed; a value that is no version matches
// nothing). Anything else compares strings: ==, != and containment as they read, and of the
// orderings <= and >= hold for equal strings while < and > never hold (the dependency
// specifiers spec leaves them undefined; packaging 26 answers instead of raising, and pip
// follows it). ~= and === on strings are errors.
Expected<bool> Compare(const EvaluationContext& context, std::string_view variable,
                       const std::string& lhs, MarkerOp op, const std::string& rhs) {
  if (IsVersionOp(op) && IsVersionVariable(variable)) {
    const Expected<Specifier> specifier = Specifier::Parse(std::string(MarkerOpText(op)) + rhs);
    if (specifier.ok()) {
      // "===" compares the strings as they are, versions or not (packaging's Specifier).
      if (op == MarkerOp::kArbitrary) return Lower(lhs) == Lower(specifier->version_text());
      const Expected<Version> version = Version::Parse(lhs);
      return version.ok() && specifier->Contains(*version, Prereleases::kAllow);
    }
  }
  switch (op) {
    case MarkerOp::kEqual:
    case MarkerOp::kLessEqual:
    case MarkerOp::kGreaterEqual:
      return lhs == rhs;
    case MarkerOp::kNotEqual:
      return lhs != rhs;
    case MarkerOp::kLess:
    case MarkerOp::kGreater:
      return false;
    case MarkerOp::kIn:
      return rhs.find(lhs) != std::string::npos;
    case MarkerOp::kNotIn:
      return rhs.find(lhs) == std::string::npos;
    case MarkerOp::kCompatible:
    case MarkerOp::kArbitrary:
      break;
  }
  return EvaluationError(context, "undefined comparison '" + lhs + "' " +
                                      std::string(MarkerOpText(op)) + " '" + rhs +
                                      "' (this operator needs versions on both sides)");
}

// As packaging 26's _evaluate_markers: the variable on the left is looked up and compared with
// the right side as written; with a literal on the left, the right side is looked up. So
// "os_name == sys_platform" compares os_name's value with the text "sys_platform", and
// '"a" == "b"' looks up a variable named "b" (an error). PEP 508 lets both sides be variables;
// pip does what packaging does, and so do we (found by tests/core/differential).
Expected<bool> EvaluateComparison(const EvaluationContext& context,
                                  const MarkerComparison& comparison) {
  if (comparison.lhs.is_variable) {
    Expected<std::string> lhs = Lookup(context, comparison.lhs.text);
    if (!lhs) return lhs.error();
    return Compare(context, comparison.lhs.text, *lhs, comparison.op, comparison.rhs.text);
  }
  Expected<std::string> rhs = Lookup(context, comparison.rhs.text);
  if (!rhs) return rhs.error();
  return Compare(context, comparison.rhs.text, comparison.lhs.text, comparison.op, *rhs);
}

Expected<bool> EvaluateNode(const EvaluationContext& context, const Node& node);

Expected<bool> EvaluateAtom(const EvaluationContext& context, const Node::Atom& atom) {
  if (const auto* comparison = std::get_if<MarkerComparison>(&atom)) {
    return EvaluateComparison(context, *comparison);
  }
  return EvaluateNode(context, *std::get<std::shared_ptr<const Node>>(atom));
}

// Any of the "or"-separated groups whose "and"-joined atoms all hold. Every atom is evaluated,
// as packaging does, so an undefined comparison is reported even where it could not matter.
Expected<bool> EvaluateNode(const EvaluationContext& context, const Node& node) {
  bool any_group = false;
  bool this_group = true;
  for (std::size_t i = 0; i < node.atoms.size(); ++i) {
    const Expected<bool> value = EvaluateAtom(context, node.atoms[i]);
    if (!value) return value.error();
    if (i > 0 && node.joins[i - 1] == BoolOp::kOr) {
      any_group = any_group || this_group;
      this_group = true;
    }
    this_group = this_group && *value;
  }
  return any_group || this_group;
}

}  // namespace

// ---- MarkerEnvironment ----

// platform_release and platform_version describe the running kernel ("6.8.0-45-generic",
// "#46-Ubuntu SMP ...") and cannot be known for a planned target, so they are empty, as
// packaging reports values it cannot determine. An ordering on them is then an error.
MarkerEnvironment MarkerEnvironment::ForLinuxCPython(int major, int minor, int micro,
                                                     std::string_view machine) {
  const std::string short_version = std::to_string(major) + "." + std::to_string(minor);
  const std::string full_version = short_version + "." + std::to_string(micro);
  MarkerEnvironment env;
  env.values = {
      {"implementation_name", "cpython"},
      {"implementation_version", full_version},
      {"os_name", "posix"},
      {"platform_machine", std::string(machine)},
      {"platform_python_implementation", "CPython"},
      {"platform_release", ""},
      {"platform_system", "Linux"},
      {"platform_version", ""},
      {"python_full_version", full_version},
      {"python_version", short_version},
      {"sys_platform", "linux"},
  };
  return env;
}

// ---- Marker ----

Marker::Marker() = default;
Marker::~Marker() = default;
Marker::Marker(const Marker&) = default;
Marker& Marker::operator=(const Marker&) = default;
Marker::Marker(Marker&&) noexcept = default;
Marker& Marker::operator=(Marker&&) noexcept = default;

Expected<Marker> Marker::Parse(std::string_view text) {
  Parser parser(text, "marker");
  std::shared_ptr<const Node> root = parser.ParseMarkerExpression(0);
  if (root == nullptr) return parser.TakeError();
  if (!parser.AtEnd()) {
    parser.Fail("expected 'and', 'or' or the end of the marker", parser.pos());
    return parser.TakeError();
  }
  Marker marker;
  marker.root_ = std::move(root);
  return marker;
}

Expected<bool> Marker::Evaluate(const MarkerEnvironment& env, std::string_view extra) const {
  if (root_ == nullptr) return true;
  const std::string normalized_extra = NormalizeName(extra);
  const EvaluationContext context{env, normalized_extra, *root_};
  return EvaluateNode(context, *root_);
}

std::string Marker::ToString() const { return root_ == nullptr ? "" : FormatNode(*root_, true); }

// ---- Requirement ----

std::string Requirement::NormalizedName() const { return NormalizeName(name); }

// As packaging's str(Requirement), "name @ url ; marker" spacing included.
std::string Requirement::ToString() const {
  std::string out = name;
  if (!extras.empty()) {
    out += "[";
    for (std::size_t i = 0; i < extras.size(); ++i) {
      if (i > 0) out += ",";
      // An extra written "cud_" (packaging reads it) normalises to "cud-", which no parser
      // reads back: the normal form writes that last '-' as the '_' it came from.
      std::string extra = extras[i];
      if (!extra.empty() && extra.back() == '-') extra.back() = '_';
      out += extra;
    }
    out += "]";
  }
  out += specifiers.ToString();
  if (!url.empty()) {
    out += " @ " + url;  // packaging 26; 24.x printed "name@ url"
    if (!marker.empty()) out += " ";
  }
  if (!marker.empty()) out += "; " + marker.ToString();
  return out;
}

namespace {

// A name or extra as packaging's IDENTIFIER token reads it: "\b[a-zA-Z0-9][a-zA-Z0-9._-]*\b",
// which lets it end in '_' (a word character) where PEP 508 wants a letter or digit. pip reads
// requirements with packaging, so "foo_" is a requirement here too (found by
// tests/core/differential).
bool IsRequirementName(std::string_view name) {
  if (name.empty() || !IsAsciiAlnum(name.front())) return false;
  if (!IsAsciiAlnum(name.back()) && name.back() != '_') return false;
  return std::all_of(name.begin(), name.end(), IsNameChar);
}

// extras = "[" WS? (name (WS? "," WS? name)*)? WS? "]"
bool ParseExtras(Parser& parser, std::vector<std::string>* extras) {
  const std::size_t open = parser.pos();
  parser.Consume('[');
  parser.SkipSpace();
  bool expect_name = false;  // after a comma
  while (true) {
    const std::size_t start = parser.pos();
    const std::string_view extra = parser.ConsumeWhile(IsNameChar);
    if (extra.empty()) {
      if (expect_name) return parser.Fail("expected an extra name after ','", start);
      break;
    }
    if (!IsRequirementName(extra)) {
      return parser.Fail("invalid extra name '" + std::string(extra) +
                             "' (it must start with a letter or digit and end with one or '_')",
                         start);
    }
    extras->push_back(NormalizeName(extra));
    parser.SkipSpace();
    if (IsNameChar(parser.Peek())) {
      return parser.Fail("expected ',' between extra names", parser.pos());
    }
    if (!parser.Consume(',')) break;
    parser.SkipSpace();
    expect_name = true;
  }
  parser.SkipSpace();
  if (!parser.Consume(']')) {
    const std::string_view expected = extras->empty() ? "an extra name or ']'" : "',' or ']'";
    return parser.Fail(
        "expected " + std::string(expected) + " (to close the '[' at " + parser.Column(open) + ")",
        parser.pos());
  }
  std::sort(extras->begin(), extras->end());
  extras->erase(std::unique(extras->begin(), extras->end()), extras->end());
  return true;
}

bool IsVersionEnd(char c) { return IsSpace(c) || c == ',' || c == ';' || c == ')'; }

// version_many = (op WS? version (WS? "," WS? op WS? version)*)? ","?
// Each specifier is checked alone so that an error can say where it is; the whole set is then
// built by SpecifierSet::Parse. A trailing comma is accepted, as packaging accepts it.
bool ParseSpecifiers(Parser& parser, SpecifierSet* specifiers, bool* found) {
  const std::size_t start = parser.pos();
  std::string joined;
  while (true) {
    const std::size_t op_start = parser.pos();
    const std::optional<MarkerOp> op = parser.ConsumeSymbolOp();
    if (!op) break;
    const std::string_view op_text = MarkerOpText(*op);
    parser.SkipSpace();
    const std::size_t version_start = parser.pos();
    const std::string_view version = parser.ConsumeWhile([](char c) { return !IsVersionEnd(c); });
    // "> =1" is no ">=1": the operator is read before the whitespace, so what follows it must
    // be a version, not the rest of another operator (found by tests/core/differential).
    // ("===" takes any operand: "===!" is fine.)
    if (version.empty() || (*op != MarkerOp::kArbitrary &&
                            std::string_view("=<>!~").find(version.front()) != std::string_view::npos)) {
      return parser.Fail("expected a version after '" + std::string(op_text) + "'", version_start);
    }
    const std::string piece = std::string(op_text) + std::string(version);
    const Expected<Specifier> specifier = Specifier::Parse(piece);
    if (!specifier) {
      return parser.Fail(specifier.error().message, op_start);
    }
    if (!joined.empty()) joined += ",";
    joined += piece;
    *found = true;
    parser.SkipSpace();
    if (!parser.Consume(',')) break;
    parser.SkipSpace();
    const char next = parser.Peek();
    if (!parser.AtEnd() && next != ';' && next != ')' && !parser.AtSymbolOp()) {
      return parser.Fail("expected a version specifier after ','", parser.pos());
    }
  }
  Expected<SpecifierSet> set = SpecifierSet::Parse(joined);
  if (!set) return parser.Fail(set.error().message, start);
  *specifiers = std::move(set).value();
  return true;
}

// requirement_marker = ";" marker WS?, then the end of the line.
bool ParseRequirementMarker(Parser& parser, std::size_t* marker_start) {
  *marker_start = parser.pos();
  if (parser.ParseMarkerExpression(0) == nullptr) return false;
  parser.SkipSpace();
  if (!parser.AtEnd()) {
    return parser.Fail("expected 'and', 'or' or the end of the requirement", parser.pos());
  }
  return true;
}

}  // namespace

Expected<Requirement> Requirement::Parse(std::string_view text) {
  Parser parser(text, "requirement");
  Requirement requirement;

  parser.SkipSpace();
  const std::size_t name_start = parser.pos();
  const std::string_view name = parser.ConsumeWhile(IsNameChar);
  if (name.empty()) {
    parser.Fail("expected a package name", name_start);
    return parser.TakeError();
  }
  if (!IsRequirementName(name)) {
    parser.Fail("invalid package name '" + std::string(name) +
                    "' (it must start with a letter or digit and end with one or '_')",
                name_start);
    return parser.TakeError();
  }
  requirement.name = std::string(name);
  parser.SkipSpace();

  if (parser.Peek() == '[') {
    if (!ParseExtras(parser, &requirement.extras)) return parser.TakeError();
    parser.SkipSpace();
  }

  bool has_marker = false;
  if (parser.Consume('@')) {
    parser.SkipSpace();
    const std::size_t url_start = parser.pos();
    // As in packaging the URL runs to whitespace, so a marker needs whitespace before its ';'
    // ("foo @ https://x/foo.whl;python_version>'3'" is all URL).
    const std::string_view url = parser.ConsumeWhile([](char c) { return !IsSpace(c); });
    if (url.empty()) {
      parser.Fail("expected a URL after '@'", url_start);
      return parser.TakeError();
    }
    requirement.url = std::string(url);
    parser.SkipSpace();
    if (!parser.AtEnd()) {
      if (!parser.Consume(';')) {
        parser.Fail("expected ';' or the end after the URL", parser.pos());
        return parser.TakeError();
      }
      has_marker = true;
    }
  } else {
    const std::size_t open = parser.pos();
    const bool parenthesised = parser.Consume('(');
    if (parenthesised) parser.SkipSpace();
    bool found = false;
    if (!ParseSpecifiers(parser, &requirement.specifiers, &found)) return parser.TakeError();
    if (parenthesised) {
      parser.SkipSpace();
      if (!parser.Consume(')')) {
        parser.Fail("expected ')' (to close the '(' at " + parser.Column(open) + ")", parser.pos());
        return parser.TakeError();
      }
    }
    parser.SkipSpace();
    if (!parser.AtEnd()) {
      if (!parser.Consume(';')) {
        parser.Fail(found           ? "expected ',', ';' or the end after the version specifier"
                    : parenthesised ? "expected ';' or the end after the version specifier"
                                    : "expected a version specifier, '@', ';' or the end",
                    parser.pos());
        return parser.TakeError();
      }
      has_marker = true;
    }
  }

  if (has_marker) {
    std::size_t marker_start = 0;
    if (!ParseRequirementMarker(parser, &marker_start)) return parser.TakeError();
    // Parsed above for errors located in the whole line; parsed again alone to build it.
    Expected<Marker> marker = Marker::Parse(text.substr(marker_start));
    if (!marker) return marker.error();
    requirement.marker = std::move(marker).value();
  }
  return requirement;
}

}  // namespace torchdex::core
