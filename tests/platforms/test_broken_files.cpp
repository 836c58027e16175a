// Bad platform descriptions are errors, never crashes or hangs.
//
// 1. The corpus tests/platforms/broken/*.toml: each file's first line is "# expect: <text>";
//    loading it must throw gridcoll::Error whose message holds that text, the file's name (its
//    stem: a placement file next to it shares it) and "file:line:column: ".
// 2. Truncated (every k bytes) and garbled (deterministic byte changes) variants of every valid
//    description (platforms/shipped/*.toml and tests/platforms/valid/*.toml): parsing each either
//    succeeds or throws gridcoll::Error in the "file:line:column: " form — nothing else — and
//    every parse finishes in bounded time (a watchdog fails the test if one hangs).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/platforms/platform.hpp"

using namespace gridcoll;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::vector<fs::path> toml_files(const fs::path& dir) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".toml") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// True if the message's first line holds "<file>:<line>:<column>: " with line, column >= 1.
bool located(const std::string& msg) {
    const std::string first = msg.substr(0, msg.find('\n'));
    const auto digits = [&](std::size_t& i) {
        const std::size_t start = i;
        while (i < first.size() && first[i] >= '0' && first[i] <= '9') ++i;
        return i > start && first[start] != '0';
    };
    for (std::size_t colon = first.find(':'); colon != std::string::npos; colon = first.find(':', colon + 1)) {
        std::size_t i = colon + 1;
        if (colon > 0 && digits(i) && i < first.size() && first[i] == ':' && digits(++i) &&
            first.compare(i, 2, ": ") == 0)
            return true;
    }
    return false;
}

}  // namespace

TEST(BrokenFiles, EachFailsWithItsExpectedMessage) {
    const auto files = toml_files(fs::path(GRIDCOLL_TEST_DATA) / "broken");
    ASSERT_GE(files.size(), 15u);
    for (const auto& f : files) {
        const std::string text = slurp(f);
        const std::string tag = "# expect: ";
        ASSERT_EQ(text.rfind(tag, 0), 0u) << f << ": first line must be '" << tag << "<substring>'";
        const std::string expect = text.substr(tag.size(), text.find('\n') - tag.size());
        ASSERT_FALSE(expect.empty()) << f;
        try {
            platform::load_platform(f.string());
            ADD_FAILURE() << f << ": loaded without error";
        } catch (const Error& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(expect), std::string::npos)
                << f << "\n  expected: " << expect << "\n  got:      " << msg;
            EXPECT_NE(msg.find(f.stem().string()), std::string::npos)
                << f << ": the message does not name the file: " << msg;
            EXPECT_TRUE(located(msg)) << f << ": no file:line:column: in " << msg;
        } catch (const std::exception& e) {
            ADD_FAILURE() << f << ": not a gridcoll::Error: " << e.what();
        }
    }
}

namespace {

// Deterministic pseudo-random numbers (64-bit LCG, high bits).
struct Lcg {
    std::uint64_t s;
    std::uint32_t next() {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>(s >> 33);
    }
};

// Bytes that matter to TOML and to the loader, tried as replacements more often than others.
const std::string kInteresting = std::string("\"'[]{}=,.#\n\r\t -+0123456789eE_\\") + '\0' + "\xff\xc3";

std::vector<std::pair<std::string, std::string>> variants(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;  // (what, text)
    if (text.empty()) return out;
    const std::size_t step = std::max<std::size_t>(1, text.size() / 150);
    for (std::size_t n = 0; n < text.size(); n += step)
        out.emplace_back("truncated to " + std::to_string(n) + " bytes", text.substr(0, n));
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        Lcg rng{seed};
        std::string t = text;
        std::string what = "garbled (seed " + std::to_string(seed) + "):";
        const int changes = 1 + static_cast<int>(seed % 4);
        for (int c = 0; c < changes; ++c) {
            const std::size_t at = rng.next() % t.size();
            const std::uint32_t kind = rng.next() % 4;
            char b;
            if (kind == 0)
                b = static_cast<char>(rng.next() & 0xff);
            else if (kind == 1)
                b = static_cast<char>(t[at] ^ (1 << (rng.next() % 8)));
            else
                b = kInteresting[rng.next() % kInteresting.size()];
            what += " byte " + std::to_string(at) + " -> " + std::to_string(static_cast<unsigned char>(b));
            t[at] = b;
        }
        out.emplace_back(what, t);
    }
    return out;
}

struct FuzzState {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::vector<std::string> failures;
    std::string current;  // the variant being parsed
    int parsed = 0, accepted = 0;
};

void fuzz(const std::vector<fs::path>& files, FuzzState& st) {
    using clock = std::chrono::steady_clock;
    for (const auto& f : files) {
        const std::string origin = f.string();
        for (const auto& [what, text] : variants(slurp(f))) {
            {
                std::lock_guard<std::mutex> lock(st.m);
                st.current = origin + " " + what;
            }
            std::string failure;
            bool ok = false;
            const auto start = clock::now();
            try {
                platform::parse_platform(text, origin);
                ok = true;
            } catch (const Error& e) {
                if (!located(e.what())) failure = "error without file:line:column: " + std::string(e.what());
            } catch (const std::exception& e) {
                failure = std::string("not a gridcoll::Error: ") + e.what();
            } catch (...) {
                failure = "a non-std exception";
            }
            const double seconds = std::chrono::duration<double>(clock::now() - start).count();
            if (seconds > 2.0) failure += " (took " + std::to_string(seconds) + " s)";
            std::lock_guard<std::mutex> lock(st.m);
            ++st.parsed;
            st.accepted += ok;
            if (!failure.empty()) st.failures.push_back(origin + " " + what + ": " + failure);
        }
    }
    std::lock_guard<std::mutex> lock(st.m);
    st.done = true;
    st.cv.notify_all();
}

}  // namespace

TEST(BrokenFiles, TruncatedAndGarbledDescriptionsFailCleanly) {
    std::vector<fs::path> files = toml_files(fs::path(GRIDCOLL_SOURCE_DIR) / "platforms" / "shipped");
    const auto own = toml_files(fs::path(GRIDCOLL_TEST_DATA) / "valid");
    files.insert(files.end(), own.begin(), own.end());
    ASSERT_FALSE(files.empty());

    // The parsing runs on its own thread so that a hang is reported rather than waited for; the
    // state is shared so that an abandoned thread never touches freed memory.
    auto st = std::make_shared<FuzzState>();
    std::thread worker([files, st] { fuzz(files, *st); });
    std::unique_lock<std::mutex> lock(st->m);
    const bool finished = st->cv.wait_for(lock, std::chrono::seconds(300), [&] { return st->done; });
    if (!finished) {
        ADD_FAILURE() << "parsing hangs (over 300 s in all); last variant: " << st->current;
        lock.unlock();
        worker.detach();
        return;
    }
    lock.unlock();
    worker.join();
    for (const auto& f : st->failures) ADD_FAILURE() << f;
    EXPECT_GT(st->parsed, 0);
    RecordProperty("variants", st->parsed);
    RecordProperty("accepted", st->accepted);
    std::cout << "[ info     ] " << st->parsed << " variants of " << files.size() << " files, " << st->accepted
              << " accepted, " << st->failures.size() << " failures\n";
}
