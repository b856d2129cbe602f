//===- LspServerMain.cpp - pto-lsp-server: MLIR's server plus tile hovers -===//
//
// MLIR's LSP server (MlirLspServerMain: diagnostics, definitions, references,
// hover on ops and values, symbols, completion, code actions) offers no hook
// to extend its hover, and its server classes are not installed. So
// pto-lsp-server runs it unchanged in a child process behind a thin relay
// built from LLVM's public LSP pieces (llvm/Support/LSP: JSON-RPC framing and
// the protocol's change events):
//
//   client --stdin--> relay --pipe--> MlirLspServerMain (child)
//   client <-stdout-- relay <-pipe--  MlirLspServerMain (child)
//
// The relay forwards every message as is, keeps the text of open documents
// (didOpen / didChange / didClose), and when the server answers a
// `textDocument/hover` on a tile value it appends the valid shape, bytes and
// memory-plan occupancy (TileHover). Everything else is MLIR's server.
//
//===----------------------------------------------------------------------===//

#include "pto/Tools/LspServerMain.h"

#include "TileHover.h"

#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::pto;
namespace json = llvm::json;
namespace llsp = llvm::lsp;

namespace {

/// A hover request waiting for the server's answer, with the document as it
/// was when the request was sent.
struct PendingHover {
  std::string uri, text;
  unsigned line = 0, character = 0;
};

class Relay {
public:
  Relay(const DialectRegistry &registry, int toServer, bool pretty,
        bool delimited)
      : hover(registry), toServer(toServer), pretty(pretty),
        delimited(delimited) {}

  /// Client -> server: remember documents and hover requests, forward.
  void fromClient(const std::string &raw) {
    if (llvm::Expected<json::Value> message = json::parse(raw))
      observe(*message);
    else
      llvm::consumeError(message.takeError());
    std::string framed =
        delimited
            ? raw + "\n// -----\n"
            : llvm::formatv("Content-Length: {0}\r\n\r\n{1}", raw.size(), raw)
                  .str();
    for (size_t done = 0; done < framed.size();) {
      ssize_t n = ::write(toServer, framed.data() + done, framed.size() - done);
      if (n <= 0)
        return; // the server is gone; its exit ends the relay
      done += n;
    }
  }

  void closeServerInput() { ::close(toServer); }

  /// Server -> client: extend hover answers on tile values, forward.
  void fromServer(const std::string &raw, llvm::raw_ostream &out) {
    llvm::Expected<json::Value> message = json::parse(raw);
    if (!message) {
      llvm::consumeError(message.takeError());
      send(raw, out);
      return;
    }
    extendHover(*message);
    send(llvm::formatv(pretty ? "{0:2}\n" : "{0}", *message).str(), out);
  }

private:
  static void send(const std::string &body, llvm::raw_ostream &out) {
    out << "Content-Length: " << body.size() << "\r\n\r\n" << body;
    out.flush();
  }

  void observe(const json::Value &message) {
    const json::Object *object = message.getAsObject();
    if (!object)
      return;
    std::optional<llvm::StringRef> method = object->getString("method");
    const json::Object *params = object->getObject("params");
    if (!method || !params)
      return;
    const json::Object *document = params->getObject("textDocument");
    std::optional<llvm::StringRef> uri =
        document ? document->getString("uri") : std::nullopt;
    if (!uri)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    if (*method == "textDocument/didOpen") {
      if (std::optional<llvm::StringRef> text = document->getString("text"))
        documents[*uri] = text->str();
    } else if (*method == "textDocument/didChange") {
      auto it = documents.find(*uri);
      const json::Array *changes = params->getArray("contentChanges");
      if (it == documents.end() || !changes)
        return;
      std::vector<llsp::TextDocumentContentChangeEvent> events;
      for (const json::Value &change : *changes) {
        llsp::TextDocumentContentChangeEvent event;
        json::Path::Root root;
        if (!llsp::fromJSON(change, event, root))
          return;
        events.push_back(std::move(event));
      }
      if (failed(llsp::TextDocumentContentChangeEvent::applyTo(events,
                                                               it->second)))
        documents.erase(it); // out of sync: no tile hovers until reopened
    } else if (*method == "textDocument/didClose") {
      documents.erase(*uri);
    } else if (*method == "textDocument/hover") {
      const json::Value *id = object->get("id");
      const json::Object *position = params->getObject("position");
      auto it = documents.find(*uri);
      if (!id || !position || it == documents.end())
        return;
      std::optional<int64_t> line = position->getInteger("line");
      std::optional<int64_t> character = position->getInteger("character");
      if (!line || !character || *line < 0 || *character < 0)
        return;
      pending[llvm::formatv("{0}", *id).str()] = {
          uri->str(), it->second, unsigned(*line), unsigned(*character)};
    }
  }

  void extendHover(json::Value &message) {
    json::Object *object = message.getAsObject();
    const json::Value *id = object ? object->get("id") : nullptr;
    if (!id || object->get("method"))
      return;
    PendingHover request;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = pending.find(llvm::formatv("{0}", *id).str());
      if (it == pending.end())
        return;
      request = std::move(it->second);
      pending.erase(it);
    }
    json::Value *result = object->get("result");
    if (!result)
      return; // an error answer stays as it is
    std::string extra =
        hover.hover(request.uri, request.text, request.line, request.character);
    if (extra.empty())
      return;
    json::Object *answer = result->getAsObject();
    json::Object *contents = answer ? answer->getObject("contents") : nullptr;
    std::optional<llvm::StringRef> value =
        contents ? contents->getString("value") : std::nullopt;
    if (value) {
      (*contents)["value"] = (*value + "\n\n---\n\n" + extra).str();
      return;
    }
    *result = json::Object{
        {"contents", json::Object{{"kind", "markdown"}, {"value", extra}}}};
  }

  mlir::pto::lsp::TileHover hover;
  int toServer;
  bool pretty, delimited;
  std::mutex mutex;
  llvm::StringMap<std::string> documents;
  std::map<std::string, PendingHover> pending;
};

} // namespace

int mlir::pto::ptoLspServerMain(int argc, char **argv,
                                DialectRegistry &registry) {
  // The relay reads the client as MLIR's server does (-lit-test: messages
  // delimited by `// -----`, pretty output) and writes to the server in the
  // same style, so the server takes the command line unchanged.
  bool pretty = false, delimited = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--help" || arg == "-help" || arg == "--version" ||
        arg == "-version" || arg.starts_with("--help-") ||
        arg.starts_with("-help-"))
      return failed(MlirLspServerMain(argc, argv, registry)) ? 1 : 0;
    if (arg == "-lit-test" || arg == "--lit-test")
      pretty = delimited = true;
    if (arg.consume_front("--input-style=") ||
        arg.consume_front("-input-style="))
      delimited = delimited || arg == "delimited";
    if (arg == "-pretty" || arg == "--pretty")
      pretty = true;
  }

  int toServer[2], fromServer[2];
  if (::pipe(toServer) || ::pipe(fromServer)) {
    llvm::errs() << "pto-lsp-server: error: cannot create pipes to the MLIR "
                    "server process\n";
    return 1;
  }
  pid_t child = ::fork();
  if (child < 0) {
    llvm::errs() << "pto-lsp-server: error: cannot start the MLIR server "
                    "process (fork failed)\n";
    return 1;
  }
  if (child == 0) {
    ::dup2(toServer[0], STDIN_FILENO);
    ::dup2(fromServer[1], STDOUT_FILENO);
    for (int fd : {toServer[0], toServer[1], fromServer[0], fromServer[1]})
      ::close(fd);
    LogicalResult result = MlirLspServerMain(argc, argv, registry);
    llvm::outs().flush();
    ::_exit(failed(result) ? 1 : 0);
  }
  ::close(toServer[0]);
  ::close(fromServer[1]);

  Relay relay(registry, toServer[1], pretty, delimited);
  std::thread clientReader([&] {
    llsp::JSONTransportInputOverFile in(
        stdin, delimited ? llsp::JSONStreamStyle::Delimited
                         : llsp::JSONStreamStyle::Standard);
    std::string json;
    while (!in.isEndOfInput() && !in.hasError())
      if (succeeded(in.readMessage(json)) && !json.empty())
        relay.fromClient(json);
    relay.closeServerInput();
  });
  clientReader.detach(); // it may stay blocked on stdin after `exit`

  FILE *serverOut = ::fdopen(fromServer[0], "r");
  llsp::JSONTransportInputOverFile in(serverOut,
                                      llsp::JSONStreamStyle::Standard);
  llvm::raw_ostream &out = llvm::outs();
  std::string json;
  while (!in.isEndOfInput() && !in.hasError())
    if (succeeded(in.readMessage(json)))
      relay.fromServer(json, out);
  int status = 0;
  ::waitpid(child, &status, 0);
  out.flush();
  // The client reader may still be blocked in a read: end the process here.
  std::fflush(nullptr);
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
