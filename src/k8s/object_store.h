// ObjectStore: what an informer keeps of one resource, decoded into compact objects and keyed by
// namespace/name. A list replaces the contents in pages (BeginReplace, Upsert per item,
// EndReplace drops what the list no longer has) so no whole list is ever held as JSON; watch
// events upsert and delete. A decoding error loses that object only and is counted, with the
// last message kept. Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/result.h"
#include "core/time.h"
#include "k8s/objects.h"

namespace gpucost::k8s {

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  virtual void BeginReplace() = 0;
  virtual void Upsert(const nlohmann::json& object) = 0;
  // `at` is when the deletion was seen (pods keep it as their end).
  virtual void Delete(const nlohmann::json& object, Instant at) = 0;
  virtual void EndReplace(Instant at) = 0;
  virtual size_t size() const = 0;
  virtual uint64_t decode_errors() const = 0;
  virtual std::string last_error() const = 0;
};

template <class T>
class TypedStore final : public ObjectStore {
 public:
  using Decoder = Result<T> (*)(const nlohmann::json&, const LabelFilter&);
  using Keep = std::function<bool(const T&)>;  // null: keep every object

  TypedStore(Decoder decode, LabelFilter labels, Keep keep = nullptr)
      : decode_(decode), labels_(std::move(labels)), keep_(std::move(keep)) {}

  void BeginReplace() override {
    std::lock_guard lock(mu_);
    ++generation_;
  }
  void Upsert(const nlohmann::json& object) override {
    Result<T> t = decode_(object, labels_);
    std::lock_guard lock(mu_);
    if (!t.ok()) {
      ++decode_errors_;
      last_error_ = t.status().ToString();
      return;
    }
    std::string key = Key(t->meta);
    if (keep_ && !keep_(*t)) {
      objects_.erase(key);
      return;
    }
    objects_.insert_or_assign(std::move(key), Entry{std::move(t).value(), generation_});
  }
  void Delete(const nlohmann::json& object, Instant at) override {
    Result<ObjectMeta> meta = DecodeMeta(object, LabelFilter::None());
    if (!meta.ok()) return;
    std::lock_guard lock(mu_);
    auto it = objects_.find(Key(*meta));
    if (it == objects_.end()) return;
    if (on_delete_) {
      if (on_delete_(it->second.object, at)) return;  // kept, as a tombstone
    }
    objects_.erase(it);
  }
  // Objects the list no longer has were deleted while nobody watched: they go as a DELETED
  // event would take them, seen at `at`.
  void EndReplace(Instant at) override {
    std::lock_guard lock(mu_);
    for (auto it = objects_.begin(); it != objects_.end();) {
      const bool stale = it->second.generation != generation_;
      if (stale && !(on_delete_ && on_delete_(it->second.object, at))) {
        it = objects_.erase(it);
      } else {
        ++it;
      }
    }
  }
  size_t size() const override {
    std::lock_guard lock(mu_);
    return objects_.size();
  }
  uint64_t decode_errors() const override {
    std::lock_guard lock(mu_);
    return decode_errors_;
  }
  std::string last_error() const override {
    std::lock_guard lock(mu_);
    return last_error_;
  }
  // Deleted objects can be kept (pods, with their end) when `f` returns true after updating it.
  void OnDelete(std::function<bool(T&, Instant)> f) { on_delete_ = std::move(f); }
  // Calls f(object) for every object, under the lock.
  template <class F>
  void ForEach(F&& f) const {
    std::lock_guard lock(mu_);
    for (const auto& [k, e] : objects_) f(e.object);
  }
  // Drops the objects `drop` returns true for.
  template <class F>
  void Prune(F&& drop) {
    std::lock_guard lock(mu_);
    std::erase_if(objects_, [&](const auto& kv) { return drop(kv.second.object); });
  }

 private:
  struct Entry {
    T object;
    uint64_t generation = 0;
  };
  static std::string Key(const ObjectMeta& m) { return m.namespace_name + "/" + m.name; }

  Decoder decode_;
  LabelFilter labels_;
  Keep keep_;
  std::function<bool(T&, Instant)> on_delete_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> objects_;
  uint64_t generation_ = 0;
  uint64_t decode_errors_ = 0;
  std::string last_error_;
};

}  // namespace gpucost::k8s
