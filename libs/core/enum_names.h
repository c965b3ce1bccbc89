/// \file
/// An enum's names, read from one table that its X-macro list (`*.inc`) fills: to_string,
/// parse and "every value" all look at the same rows, so config parsing, logs and CSV headers
/// cannot drift apart, and adding a value touches the list alone. A row is any struct with
/// `value` and `name` first; columns after them (bytes, block size, ...) ride along.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace lw {

/// A row with nothing but the name.
template <class E>
struct NameRow {
  E value;
  const char* name;
};

/// The row for `v`, or nullptr when `v` is not in the list (a value cast from an int).
template <class Row, size_t N>
const Row* find_row(const Row (&rows)[N], decltype(Row::value) v) {
  for (const Row& r : rows)
    if (r.value == v) return &r;
  return nullptr;
}

template <class Row, size_t N>
const char* name_of(const Row (&rows)[N], decltype(Row::value) v, const char* unknown = "?") {
  const Row* r = find_row(rows, v);
  return r ? r->name : unknown;
}

template <class Row, size_t N>
std::optional<decltype(Row::value)> parse_name(const Row (&rows)[N], const std::string& s) {
  for (const Row& r : rows)
    if (s == r.name) return r.value;
  return std::nullopt;
}

template <class Row, size_t N>
std::vector<decltype(Row::value)> all_values(const Row (&rows)[N]) {
  std::vector<decltype(Row::value)> v;
  for (const Row& r : rows) v.push_back(r.value);
  return v;
}

}  // namespace lw
