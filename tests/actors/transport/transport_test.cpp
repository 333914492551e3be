#include "actors/transport/transport.hpp"
#include "tests/actors/transport/fixtures.hpp"

#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>

using namespace belay;
using namespace belay::transport;
using namespace belay::transport::testing;

TEST_CASE("log: the page is written as one info line and counts as sent") {
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>(
      "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  capture->set_pattern("%l %v");
  spdlog::set_default_logger(capture);
  auto p = sample_page("audit", "anyone");
  p.incident.title = "two\nlines";

  auto r = send(make_channel("audit", "log", ""), p);

  spdlog::set_default_logger(previous);
  CHECK(r.result == outcome::sent);
  CHECK(r.error.empty());
  auto line = out.str();
  CHECK(line.rfind("info ", 0) == 0);
  CHECK(line.find("incident 42") != std::string::npos);
  CHECK(line.find("\"two lines\"") != std::string::npos);
  CHECK(line.find("'anyone'") != std::string::npos);
  CHECK(line.find("42:0:1:audit:anyone") != std::string::npos);
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
}

TEST_CASE("an unknown channel type is permanent") {
  auto r =
      send(make_channel("x", "pigeon", "http://127.0.0.1:1/"), sample_page("x", "y"));

  CHECK(r.result == outcome::permanent);
  CHECK(r.error == "unknown channel type 'pigeon'");
}
