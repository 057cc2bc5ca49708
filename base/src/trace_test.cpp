// trace_test.cpp - the trace recorder (strata/base/trace.h): off by default,
// invocations recorded while installed, names escaped in the JSON it writes.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "strata/base/trace.h"

TEST_SUITE("base.trace") {
  TEST_CASE("records nothing unless installed, and escapes what it writes") {
    CHECK(strata_trace_installed() == nullptr);
    strata_trace_t* trace = nullptr;
    REQUIRE(strata_trace_create(strata_allocator_system(), &trace) == nullptr);
    // A NULL recorder (tracing off) takes nothing.
    strata_trace_record(strata_trace_installed(), "dispatch", "ignored", 1, 0,
                        1, nullptr);
    CHECK(strata_trace_event_count(trace) == 0);

    strata_trace_install(trace);
    CHECK(strata_trace_installed() == trace);
    int64_t start = strata_trace_now_ns();
    strata_trace_record(strata_trace_installed(), "dispatch",
                        "quote\"back\\slash\nline", STRATA_TRACE_TRACK_WORKER0 + 1,
                        start, start + 1500, "\"workgroups\": 3");
    strata_trace_install(nullptr);
    CHECK(strata_trace_event_count(trace) == 1);

    std::string path = "trace_test_" + std::to_string(start) + ".json";
    REQUIRE(strata_trace_write_json(trace, path.c_str()) == nullptr);
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    std::remove(path.c_str());
    std::string json = text.str();
    CHECK(json.find("\"name\": \"quote\\\"back\\\\slash\\u000aline\"") !=
          std::string::npos);
    CHECK(json.find("\"dur\": 1.500") != std::string::npos);
    CHECK(json.find("\"args\": {\"workgroups\": 3}") != std::string::npos);
    CHECK(json.find("\"name\": \"worker 1\"") != std::string::npos);

    strata_status_t status =
        strata_trace_write_json(trace, "/nonexistent-dir/trace.json");
    CHECK(strata_status_code(status) == STRATA_STATUS_NOT_FOUND);
    strata_status_free(status);
    strata_trace_destroy(trace);
  }
}
