// Card Arena's C++ bot host (protocol version 1), compiled together with the bot's file.
//
// A C++ bot is one .cpp file with a class (or struct) Bot: a public default constructor and
// the game's methods by the contract's names (draft_pick), each taking the call's arguments
// as types nlohmann::json converts to (int, std::string, std::vector<std::string>, json...)
// and returning one (or void for a notice). The platform compiles a file of its own that
// includes this header, then the bot's file, then the game's table of methods
// (bots/languages/cpp/__init__.py: contract_source), and answers the JSON-lines protocol on
// stdin/stdout like the other hosts (docs/bot-protocol.md):
//
// - every match gets a new Bot(); what the bot keeps in static or global variables lasts
//   while the process does (across matches of new deals; a deal the process has played is
//   played by a new process: this host cannot start a bot afresh in place);
// - whatever the bot prints, to std::cout included, goes to stderr (its owner's log): the
//   protocol has a descriptor of its own;
// - an exception out of the bot's code is its fault in the match, named by its what().
//
// Only the standard library and nlohmann::json (`json` here) are there: the sandbox has
// nothing else to link against.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

// nlohmann::json checks how it is used with JSON_ASSERT, by default an assert that kills the
// program: a key read with [] that a const object does not have (obs["prize_card"]) ended the
// bot as "killed by SIGSEGV", naming nothing. Here a failed check throws, so the bot's fault
// says what went wrong, as any exception out of its code does.
#ifndef JSON_ASSERT
#define JSON_ASSERT(check)                                                                  \
  ((check) ? static_cast<void>(0)                                                           \
           : throw std::logic_error("json: misused (" #check "): most often a key read "    \
                                    "with [] that the object does not have; .at(\"key\") " \
                                    "names the key"))
#endif
// (within a noexcept function of the library such a throw ends the program, as the assert did:
// a warning the compiler would give every bot, before the bot's own messages)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wterminate"
#include <nlohmann/json.hpp>
#pragma GCC diagnostic pop

using json = nlohmann::json;

namespace card_arena {

constexpr int PROTOCOL = 1;

// The bot's methods by the contract's names: each takes the call's arguments (a JSON array)
// and returns the answer as JSON.
template <class B>
class Table {
 public:
  using Method = std::function<json(B&, const json&)>;

  template <class R, class... A>
  void add(const std::string& name, R (B::*method)(A...)) {
    methods_[name] = [name, method](B& bot, const json& args) {
      return call(name, bot, args, [&](auto&&... given) { return (bot.*method)(given...); },
                  std::index_sequence_for<A...>{}, static_cast<std::tuple<std::decay_t<A>...>*>(nullptr));
    };
  }

  template <class R, class... A>
  void add(const std::string& name, R (B::*method)(A...) const) {
    methods_[name] = [name, method](B& bot, const json& args) {
      return call(name, bot, args, [&](auto&&... given) { return (bot.*method)(given...); },
                  std::index_sequence_for<A...>{}, static_cast<std::tuple<std::decay_t<A>...>*>(nullptr));
    };
  }

  const Method* find(const std::string& name) const {
    auto found = methods_.find(name);
    return found == methods_.end() ? nullptr : &found->second;
  }

  json names() const {
    json list = json::array();
    for (const auto& entry : methods_) list.push_back(entry.first);
    return list;
  }

 private:
  template <class Invoke, std::size_t... I, class... A>
  static json call(const std::string& name, B&, const json& args, Invoke invoke,
                   std::index_sequence<I...>, std::tuple<A...>*) {
    if (!args.is_array() || args.size() != sizeof...(A)) {
      throw std::invalid_argument(name + " takes " + std::to_string(sizeof...(A)) +
                                  " argument(s), the call has " +
                                  std::to_string(args.is_array() ? args.size() : 0));
    }
    using R = decltype(invoke(std::declval<A>()...));
    if constexpr (std::is_void_v<R>) {
      invoke(args[I].template get<A>()...);
      return nullptr;
    } else {
      return json(invoke(args[I].template get<A>()...));
    }
  }

  std::map<std::string, Method> methods_;
};

template <class B, class = void>
struct has_name : std::false_type {};
template <class B>
struct has_name<B, std::void_t<decltype(B::name)>> : std::true_type {};

template <class B>
std::string bot_name() {
  if constexpr (has_name<B>::value) {
    return std::string(B::name).substr(0, 64);
  } else {
    return "";
  }
}

class Out {
 public:
  // The protocol's own descriptor; what the bot prints to stdout goes to stderr instead.
  Out() {
    int fd = dup(1);
    if (fd < 0 || dup2(2, 1) < 0) throw std::runtime_error("cannot set up the output");
    file_ = fdopen(fd, "w");
    if (file_ == nullptr) throw std::runtime_error("cannot set up the output");
  }
  void send(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_;
};

inline double cpu_seconds() {
  rusage used{};
  getrusage(RUSAGE_SELF, &used);
  return used.ru_utime.tv_sec + used.ru_stime.tv_sec +
         (used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
}

// An exception's type as its code names it (std::runtime_error).
inline std::string type_name(const std::type_info& type) {
  int status = 0;
  char* named = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string text = status == 0 && named != nullptr ? named : type.name();
  std::free(named);
  return text;
}

// What went wrong in the bot's code, as an error reply says it (and its log).
inline json failure(const std::string& what, bool memory) {
  std::cerr << what << std::endl;
  json reply = {{"type", "error"}, {"error", what}};
  if (memory) reply["kind"] = "memory";
  return reply;
}

template <class Run>
json guarded(Run run, json* value) {
  try {
    *value = run();
    return nullptr;
  } catch (const std::bad_alloc&) {
    return failure("std::bad_alloc: the bot ran out of memory", true);
  } catch (const std::exception& error) {
    return failure(type_name(typeid(error)) + ": " + error.what(), false);
  } catch (...) {
    return failure("an exception that is not a std::exception", false);
  }
}

template <class B>
int serve(void (*contract)(Table<B>&), const char* runtime) {
  std::ios::sync_with_stdio(false);
  Out out;
  Table<B> table;
  contract(table);
  out.send({{"type", "hello"},
            {"protocol", PROTOCOL},
            {"language", "cpp"},
            {"name", bot_name<B>()},
            {"methods", table.names()},
            {"runtime", runtime},
            {"quiet_begin", true}});
  std::unique_ptr<B> bot;
  json failed = nullptr;  // a notice's failure (or the bot's construction's), for the next reply
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json message = json::parse(line, nullptr, false);
    if (message.is_discarded() || !message.is_object()) {
      out.send(failure("Error: a request that is not a JSON object", false));
      continue;
    }
    const json id = message.value("id", json());
    const std::string type = message.value("type", "");
    if (type == "quit") return 0;
    if (type == "begin") {
      bot.reset();
      failed = nullptr;
      json made;
      json error = guarded([&] { bot = std::make_unique<B>(); return json(); }, &made);
      if (!error.is_null()) {
        failed = error;
        failed["kind"] = error.value("kind", "") == "memory" ? "memory" : "load";
      }
      if (message.value("reply", true) == false) continue;  // it went with the first question
      if (failed.is_null()) {
        out.send({{"type", "ok"}, {"id", id}});
        continue;
      }
    }
    if (type == "call" || type == "tell") {
      if (!failed.is_null()) {
        if (type == "tell") continue;  // the notices after a failed one are not run
      } else {
        const std::string method = message.value("method", "");
        json value;
        json error;
        const auto* found = table.find(method);
        if (bot == nullptr) {
          error = failure("Error: call before begin", false);
        } else if (found == nullptr) {
          error = failure("Error: the bot has no method " + method, false);
        } else {
          error = guarded([&] { return (*found)(*bot, message.value("args", json::array())); },
                          &value);
        }
        if (type == "tell") {
          if (!error.is_null()) {
            failed = error;
            failed["told"] = id;
            failed["method"] = method;
          }
          continue;
        }
        if (error.is_null()) {
          out.send({{"type", "return"}, {"value", value}, {"id", id}});
        } else {
          error["id"] = id;
          out.send(error);
        }
        continue;
      }
    }
    if (!failed.is_null()) {
      failed["id"] = id;
      out.send(failed);
      failed = nullptr;
      if (type == "end") bot.reset();
      continue;
    }
    if (type == "end") {
      bot.reset();
      out.send({{"type", "ok"}, {"cpu", cpu_seconds()}, {"id", id}});
    } else if (type != "begin") {
      json reply = failure("Error: unknown request type " + json(type).dump(), false);
      reply["id"] = id;
      out.send(reply);
    }
  }
  return 0;
}

}  // namespace card_arena
