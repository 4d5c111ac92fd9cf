#include "protocol.hpp"

#include <array>

namespace tilescope::remote {

namespace {

constexpr std::array kKinds = {
    std::pair{ErrorKind::InvalidArgument, "invalid-argument"},
    std::pair{ErrorKind::Unsupported, "unsupported"},
    std::pair{ErrorKind::Unavailable, "unavailable"},
    std::pair{ErrorKind::OutOfMemory, "out-of-memory"},
    std::pair{ErrorKind::LaunchFailed, "launch-failed"},
    std::pair{ErrorKind::DeviceLost, "device-lost"},
    std::pair{ErrorKind::Cancelled, "cancelled"},
};

struct TooDeep {};

}  // namespace

nlohmann::json parseMessage(const std::string& line) {
  nlohmann::json message;
  try {
    // The callback sees every array and object as it opens, so a deep line stops at the limit
    // instead of building the whole tree.
    message = nlohmann::json::parse(
        line, [](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
          if ((event == nlohmann::json::parse_event_t::object_start ||
               event == nlohmann::json::parse_event_t::array_start) &&
              depth >= kMaxDepth)
            throw TooDeep{};
          return true;
        });
  } catch (const TooDeep&) {
    throw Error(ErrorKind::InvalidArgument,
                "the line nests deeper than " + std::to_string(kMaxDepth) + " levels");
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::InvalidArgument, std::string("the line is not JSON: ") + e.what());
  }
  if (!message.is_object())
    throw Error(ErrorKind::InvalidArgument, "the line is not a JSON object");
  return message;
}

std::string formatMessage(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + '\n';
}

std::string kindName(ErrorKind kind) {
  for (const auto& [known, name] : kKinds)
    if (known == kind) return name;
  return "invalid-argument";
}

std::optional<ErrorKind> kindFromName(const std::string& name) {
  for (const auto& [kind, known] : kKinds)
    if (known == name) return kind;
  return std::nullopt;
}

}  // namespace tilescope::remote
