// The loopback server under the routing index (installer/platform/loopback_server.h), through
// real sockets: curl as the client, raw requests for the malformed ones, /proc/net/tcp for the
// address it is bound to, and the port closed after Stop.
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "installer/platform/loopback_server.h"
#include "tests/installer/loopback_client.h"

namespace torchdex::installer {
namespace {

using testing::Connect;
using ::testing::ElementsAre;
using testing::Fetch;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::ListeningAddresses;
using ::testing::Not;
using testing::ProcLoopbackAddress;
using testing::Raw;

TEST(LoopbackServerTest, ServesOnLoopbackOnlyAndThePortIsClosedAfterStop) {
  auto server = LoopbackServer::Start([](const HttpRequest& request) {
    return HttpResponse{200, "text/plain", request.method + " " + request.target};
  });
  ASSERT_TRUE(server.ok()) << server.error().message;
  const int port = (*server)->port();
  ASSERT_GT(port, 0);
  // 127.0.0.1 as /proc writes it (little-endian hex): 0100007F; nothing on 0.0.0.0 or ::.
  EXPECT_THAT(ListeningAddresses(port), ElementsAre(ProcLoopbackAddress(port)));
  long status = 0;
  EXPECT_EQ(Fetch("http://127.0.0.1:" + std::to_string(port) + "/simple/x/?q", &status),
            "GET /simple/x/?q");
  EXPECT_EQ(status, 200);
  const std::string head = Raw(port, "HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_THAT(head, HasSubstr("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(head, HasSubstr("Content-Length: 7\r\n"));
  EXPECT_THAT(head, HasSubstr("Connection: close\r\n"));
  EXPECT_THAT(head, Not(HasSubstr("HEAD /a")));

  (*server)->Stop();
  EXPECT_EQ(Connect(port), -1);
  EXPECT_THAT(ListeningAddresses(port), IsEmpty());
  (*server)->Stop();  // again: nothing happens
}

TEST(LoopbackServerTest, RefusesWhatIsNotABoundedGetOrHead) {
  LoopbackServerLimits limits;
  limits.max_request_bytes = 1024;
  limits.read_timeout = std::chrono::milliseconds(200);
  auto server = LoopbackServer::Start(
      [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); }, limits);
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  EXPECT_THAT(Raw(port, "GET / HTTP/1.1\r\nX: " + std::string(4000, 'a') + "\r\n\r\n"),
              HasSubstr("HTTP/1.1 431 "));
  EXPECT_THAT(Raw(port, "POST / HTTP/1.1\r\n\r\n"), HasSubstr("HTTP/1.1 405 "));
  EXPECT_THAT(Raw(port, "GET /\r\n\r\n"), HasSubstr("HTTP/1.1 400 "));
  EXPECT_THAT(Raw(port, "GET / HTTP/2.0\r\n\r\n"), HasSubstr("HTTP/1.1 505 "));
  EXPECT_THAT(Raw(port, "GET / HTTP/1.1\r\n"), HasSubstr("HTTP/1.1 408 "));  // never finished
  const std::string crashed = Raw(port, "GET / HTTP/1.1\r\n\r\n");
  EXPECT_THAT(crashed, HasSubstr("HTTP/1.1 500 "));
  EXPECT_THAT(crashed, HasSubstr("boom"));
}

TEST(LoopbackServerTest, AnswersConnectionsAtOnceAndAnIdleClientHoldsNeitherOthersNorStop) {
  // Each answer waits until three are in progress together: only a server that answers
  // connections at once gets there.
  std::mutex mutex;
  std::condition_variable changed;
  int in_progress = 0;
  bool together = false;
  LoopbackServerLimits limits;
  limits.read_timeout = std::chrono::hours(1);  // a Stop that waited for it would hang the test
  auto server = LoopbackServer::Start(
      [&](const HttpRequest&) {
        std::unique_lock<std::mutex> lock(mutex);
        ++in_progress;
        if (in_progress == 3) together = true;
        changed.notify_all();
        changed.wait_for(lock, std::chrono::seconds(10), [&] { return together; });
        return HttpResponse{200, "text/plain", together ? "together" : "alone"};
      },
      limits);
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  const int idle = Connect(port);  // sends nothing, holds one thread
  ASSERT_GE(idle, 0);
  std::vector<std::string> bodies(3);
  std::vector<std::thread> clients;
  for (int i = 0; i < 3; ++i) {
    clients.emplace_back(
        [&, i] { bodies[i] = Fetch("http://127.0.0.1:" + std::to_string(port) + "/"); });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_THAT(bodies, ElementsAre("together", "together", "together"));
  // Stop does not wait out the idle client's read timeout.
  (*server)->Stop();
  EXPECT_EQ(Connect(port), -1);
  ::close(idle);
}

TEST(LoopbackServerTest, IdleConnectionsHoldNoWorkerAndTheOldestMakeWayForNewOnes) {
  // Issue 29, item 16: 400 connections that send nothing, 2 workers, and a read timeout of an
  // hour. A server whose workers read heads would answer the next request after the idle ones
  // time out; this one answers it at once.
  LoopbackServerLimits limits;
  limits.threads = 2;
  limits.read_timeout = std::chrono::hours(1);
  auto server = LoopbackServer::Start(
      [](const HttpRequest& request) { return HttpResponse{200, "text/plain", "served " + request.target}; },
      limits);
  ASSERT_TRUE(server.ok());
  const int port = (*server)->port();
  std::vector<int> idle;
  for (int i = 0; i < 400; ++i) {
    const int fd = Connect(port);
    ASSERT_GE(fd, 0) << i;
    idle.push_back(fd);
  }
  auto answer = std::async(std::launch::async, [port] { return Raw(port, "GET /after HTTP/1.1\r\nHost: x\r\n\r\n"); });
  // A liveness bound, not a timing: the idle connections would hold it for an hour. Stop
  // ends the request either way (it drops connections), so a failure does not hang.
  const bool answered = answer.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  (*server)->Stop();
  EXPECT_TRUE(answered) << "the request waited behind 400 idle connections";
  EXPECT_THAT(answer.get(), HasSubstr("served /after"));
  for (int fd : idle) ::close(fd);

  // Past max_pending heads being read, a new connection closes the one accepted longest ago.
  limits.max_pending = 4;
  auto small = LoopbackServer::Start([](const HttpRequest&) { return HttpResponse{200, "text/plain", "ok"}; }, limits);
  ASSERT_TRUE(small.ok());
  const int small_port = (*small)->port();
  const int oldest = Connect(small_port);
  ASSERT_GE(oldest, 0);
  std::vector<int> others;
  for (int i = 0; i < 4; ++i) others.push_back(Connect(small_port));
  EXPECT_THAT(Raw(small_port, "GET / HTTP/1.1\r\n\r\n"), HasSubstr("HTTP/1.1 200 OK"));
  pollfd closed{oldest, POLLIN, 0};
  ASSERT_EQ(::poll(&closed, 1, 10000), 1);  // a bound, so that a failure does not hang
  char byte = 0;
  EXPECT_EQ(::recv(oldest, &byte, 1, MSG_DONTWAIT), 0);  // closed by the server, without an answer
  ::close(oldest);
  for (int fd : others) ::close(fd);
}

}  // namespace
}  // namespace torchdex::installer
