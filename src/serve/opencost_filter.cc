#include "serve/opencost_filter.h"

#include <array>
#include <cctype>
#include <optional>
#include <vector>

#include "core/strings.h"
#include "serve/opencost_grouping.h"

namespace gpucost::serve {

enum class Field {
  kCluster,
  kNode,
  kNamespace,
  kControllerKind,
  kControllerName,
  kPod,
  kContainer,
  kTeam,
  kLabel,
  kAnnotation,  // gpucost keeps none: every pod's is empty
  kServices,    // nor services: none matches a service
};
enum class Op { kEquals, kContains, kPrefix, kSuffix };

struct AllocationFilter::Expr {
  // A comparison when `children` is empty; otherwise a group of `all` (+) or any (|).
  Field field = Field::kCluster;
  std::string key;  // label[KEY]
  Op op = Op::kEquals;
  bool negated = false;
  std::vector<std::string> values;
  bool all = true;
  std::vector<Expr> children;
};

namespace {

using Expr = AllocationFilter::Expr;

constexpr std::array<std::pair<std::string_view, Field>, 9> kFields = {{
    {"cluster", Field::kCluster},
    {"node", Field::kNode},
    {"namespace", Field::kNamespace},
    {"controllerKind", Field::kControllerKind},
    {"controllerName", Field::kControllerName},
    {"pod", Field::kPod},
    {"container", Field::kContainer},
    {"team", Field::kTeam},
    {"services", Field::kServices},
}};

// Recursive descent over the text; positions in errors are 1-based characters.
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<Expr> Filter(int depth) {
    GPUCOST_ASSIGN_OR_RETURN(Expr first, Element(depth));
    Skip();
    if (AtEnd() || Peek() == ')') return first;
    const char op = Peek();
    if (op != '+' && op != '|') return Error("expected '+', '|' or the end");
    Expr group;
    group.all = op == '+';
    group.children.push_back(std::move(first));
    while (true) {
      Skip();
      if (AtEnd() || Peek() == ')') return group;
      if (Peek() != '+' && Peek() != '|') return Error("expected '+', '|' or the end");
      if (Peek() != op) {
        return Error(StrCat("'", Peek(), "' after '", op,
                            "' in one group: put parentheses around one of them"));
      }
      ++pos_;
      GPUCOST_ASSIGN_OR_RETURN(Expr next, Element(depth));
      group.children.push_back(std::move(next));
    }
  }

  Status Finish() {
    Skip();
    if (!AtEnd()) return Error(Peek() == ')' ? "')' without '('" : "unexpected text");
    return Status::Ok();
  }

 private:
  Result<Expr> Element(int depth) {
    Skip();
    if (!AtEnd() && Peek() == '(') {
      ++pos_;
      if (depth > 32) return Error("nested too deeply");
      GPUCOST_ASSIGN_OR_RETURN(Expr inner, Filter(depth + 1));
      Skip();
      if (AtEnd() || Peek() != ')') return Error("'(' without ')'");
      ++pos_;
      return inner;
    }
    return Comparison();
  }

  Result<Expr> Comparison() {
    Expr n;
    const size_t start = pos_;
    while (!AtEnd() &&
           (std::isalnum(static_cast<unsigned char>(Peek())) || Peek() == '_' || Peek() == '-')) {
      ++pos_;
    }
    const std::string_view name = s_.substr(start, pos_ - start);
    if (name.empty()) return Error("expected a field (namespace, label[app], ...)");
    if (name == "label" || name == "annotation") {
      if (AtEnd() || Peek() != '[') return Error(StrCat("expected [KEY] after ", name));
      const size_t close = s_.find(']', pos_);
      if (close == std::string_view::npos) return Error("'[' without ']'");
      n.field = name == "label" ? Field::kLabel : Field::kAnnotation;
      n.key = std::string(s_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
    } else {
      bool known = false;
      for (const auto& [text, field] : kFields) {
        if (text == name) {
          n.field = field;
          known = true;
        }
      }
      if (!known) {
        pos_ = start;
        return Error(StrCat("unknown field \"", name,
                            "\": cluster, node, namespace, controllerKind, controllerName, pod, "
                            "container, team, services, label[KEY] or annotation[KEY]"));
      }
    }
    Skip();
    GPUCOST_RETURN_IF_ERROR(Operator(n));
    do {
      Skip();
      if (AtEnd() || Peek() != '"') return Error("expected a \"quoted\" value");
      const size_t close = s_.find('"', pos_ + 1);
      if (close == std::string_view::npos) return Error("unterminated \"value");
      n.values.emplace_back(s_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      Skip();
    } while (!AtEnd() && Peek() == ',' && ++pos_);
    return n;
  }

  Status Operator(Expr& n) {
    static constexpr std::array<std::pair<std::string_view, Op>, 4> kOps = {
        {{"<~:", Op::kPrefix}, {"~>:", Op::kSuffix}, {"~:", Op::kContains}, {":", Op::kEquals}}};
    n.negated = !AtEnd() && Peek() == '!';
    if (n.negated) ++pos_;
    for (const auto& [text, op] : kOps) {
      if (s_.substr(pos_, text.size()) == text) {
        n.op = op;
        pos_ += text.size();
        return Status::Ok();
      }
    }
    return Error("expected an operator (:, !:, ~:, !~:, <~:, !<~:, ~>:, !~>:)");
  }

  void Skip() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(Peek()))) ++pos_;
  }
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return s_[pos_]; }
  Status Error(std::string_view what) const {
    return Status::InvalidArgument(StrCat("filter: at ", pos_ + 1, ": ", what));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string Sanitized(std::string_view key) {
  std::string out(key);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

// The field's value on the record; nullopt when the record has none (idle capacity).
std::optional<std::string_view> ValueOf(const Expr& n, const Inventory& inv, const CostRecord& r) {
  const Holder* h = r.is_idle() ? nullptr : &inv.holders[r.holder];
  const Node& node = inv.nodes[inv.units[r.unit].node];
  switch (n.field) {
    case Field::kCluster:
      return h != nullptr ? h->cluster : node.cluster;
    case Field::kNode:
      return node.name;
    case Field::kNamespace:
      if (h) return h->namespace_name;
      break;
    case Field::kControllerKind:
      if (h) return h->workload_kind;
      break;
    case Field::kControllerName:
      if (h) return h->workload;
      break;
    case Field::kPod:
      if (h) return h->pod;
      break;
    case Field::kContainer:
      if (h) return h->container;
      break;
    case Field::kTeam:
      if (h) return h->team;
      break;
    case Field::kLabel:
      if (h == nullptr) break;
      for (const auto& label : h->labels) {
        if (label.name == n.key || Sanitized(label.name) == n.key) return label.value;
      }
      return std::string_view();
    case Field::kAnnotation:
    case Field::kServices:
      if (h) return std::string_view();
      break;
  }
  return std::nullopt;
}

bool Compare(Op op, std::string_view value, std::string_view wanted) {
  switch (op) {
    case Op::kEquals:
      return value == wanted;
    case Op::kContains:
      return value.find(wanted) != std::string_view::npos;
    case Op::kPrefix:
      return value.starts_with(wanted);
    case Op::kSuffix:
      return value.ends_with(wanted);
  }
  return false;
}

bool Eval(const Expr& n, const Inventory& inv, const CostRecord& r) {
  if (!n.children.empty()) {
    for (const Expr& c : n.children) {
      if (Eval(c, inv, r) != n.all) return !n.all;
    }
    return n.all;
  }
  const std::optional<std::string_view> value = ValueOf(n, inv, r);
  if (!value) return false;
  bool any = false;
  if (n.field == Field::kControllerKind) {
    // OpenCost's kinds are lowercase ("deployment") and clients write either case; a CronJob's
    // pods are OpenCost's "job" as well as gpucost's "CronJob".
    const std::string kind = ToLower(*value);
    const std::string opencost_kind = OpenCostControllerKind(*value);
    for (const std::string& wanted : n.values) {
      const std::string w = ToLower(wanted);
      any = any || Compare(n.op, kind, w) ||
            (!opencost_kind.empty() && Compare(n.op, opencost_kind, w));
    }
  } else {
    for (const std::string& wanted : n.values) any = any || Compare(n.op, *value, wanted);
  }
  return n.negated ? !any : any;
}

}  // namespace

Result<AllocationFilter> AllocationFilter::Parse(std::string_view text) {
  AllocationFilter f;
  if (Trim(text).empty()) return f;
  Parser p(text);
  GPUCOST_ASSIGN_OR_RETURN(Expr root, p.Filter(0));
  GPUCOST_RETURN_IF_ERROR(p.Finish());
  f.root_ = std::make_shared<const Expr>(std::move(root));
  return f;
}

bool AllocationFilter::Matches(const Inventory& inventory, const CostRecord& record) const {
  return root_ == nullptr || Eval(*root_, inventory, record);
}

}  // namespace gpucost::serve
