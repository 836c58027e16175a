// Child processes started through gridcoll::sys end with the run that started them, however it
// ends (a run killed with SIGKILL forwards nothing, yet its smpirun or mpirun must not live on),
// and the scratch directory of a run killed so is removed by the next run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gridcoll/algorithms/error.hpp"
#include "gridcoll/system/files.hpp"
#include "gridcoll/system/process.hpp"

namespace {

using Argv = std::vector<std::string>;

// Starts a "run" (a forked process, Ctrl-C at its default) that starts `sh -c 'echo $$ > pidfile;
// exec sleep 600'` through `start`, and returns the run's pid once the grandchild has written its
// own. In the background: the shell starts `sleep 600 &` (which so ignores SIGINT), writes its
// pid and waits for it.
template <typename Start>
pid_t start_run(const std::string& pidfile, Start start, pid_t& grandchild, bool background = false) {
    std::remove(pidfile.c_str());
    const pid_t run = fork();
    if (run == 0) {
        signal(SIGINT, SIG_DFL);
        const std::string publish = " > " + pidfile + ".tmp && mv " + pidfile + ".tmp " + pidfile;
        start(Argv{"sh", "-c", background ? "sleep 600 & echo $!" + publish + " && wait" : "echo $$" + publish + " && exec sleep 600"});
        _exit(0);
    }
    grandchild = -1;
    for (int i = 0; i < 1000 && grandchild <= 0; ++i) {
        std::ifstream f(pidfile);
        if (!(f >> grandchild)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return run;
}

bool gone_within(pid_t pid, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (gridcoll::sys::alive(pid)) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

std::string scratch(const char* name) {
    return ::testing::TempDir() + "gridcoll_process_" + name + std::to_string(getpid());
}

void kill_run(pid_t run, int sig) {
    kill(run, sig);
    int st = 0;
    waitpid(run, &st, 0);
}

void start_by_lines(const Argv& argv) {
    gridcoll::sys::run_lines(argv, [](const std::string&) {});
}
void start_in_foreground(const Argv& argv) { gridcoll::sys::run_foreground(argv); }

// A run started by `start` gets `sig`; its child must be gone within 10 s.
void expect_child_ends(const char* name, void (*start)(const Argv&), int sig, const char* why) {
    pid_t child = -1;
    const std::string pidfile = scratch(name);
    const pid_t run = start_run(pidfile, start, child);
    std::remove(pidfile.c_str());
    ASSERT_GT(child, 0) << "the child never started";
    kill_run(run, sig);
    EXPECT_TRUE(gone_within(child, 10)) << why;
    if (gridcoll::sys::alive(child)) kill(child, SIGKILL);
}

}  // namespace

TEST(Process, ALineChildEndsWhenItsRunIsKilled) {
    expect_child_ends("lines", start_by_lines, SIGKILL, "the child of a killed run lives on");
}

TEST(Process, AForegroundChildEndsWhenItsRunIsKilled) {
    expect_child_ends("fg", start_in_foreground, SIGKILL, "the child of a killed run lives on");
}

TEST(Process, TerminatingARunTerminatesItsChild) {
    expect_child_ends("term", start_by_lines, SIGTERM, "SIGTERM to a run did not reach its child");
}

// Ctrl-C at a run whose child ends on it but has started a member that ignores SIGINT (smpirun's
// simulator, when the signal comes before smpirun's trap knows its pid): that member is ended too,
// and the run does not wait for the output it holds open.
TEST(Process, CtrlCEndsWhatTheChildLeftInTheBackground) {
    pid_t member = -1;
    const std::string pidfile = scratch("bg");
    const pid_t run = start_run(pidfile, start_by_lines, member, true);
    std::remove(pidfile.c_str());
    ASSERT_GT(member, 0) << "the background member never started";
    kill(run, SIGINT);
    EXPECT_TRUE(gone_within(member, 10)) << "a member of the child's group that ignores SIGINT outlived Ctrl-C";
    EXPECT_TRUE(gone_within(run, 10)) << "the run waited on for its child's background member";
    if (gridcoll::sys::alive(member)) kill(member, SIGKILL);
    int st = 0;
    waitpid(run, &st, 0);
}

TEST(Process, ADaemonOutlivesItsStarter) {
    const std::string log = scratch("daemon") + ".log";
    const pid_t run = fork();
    if (run == 0) {
        const pid_t d = gridcoll::sys::spawn_daemon({"sleep", "600"}, log);
        std::ofstream(log + ".pid") << d;
        _exit(0);
    }
    int st = 0;
    waitpid(run, &st, 0);
    pid_t daemon = -1;
    std::ifstream(log + ".pid") >> daemon;
    ASSERT_GT(daemon, 0);
    EXPECT_FALSE(gone_within(daemon, 0.5)) << "a daemon ended with the process that started it";
    kill(daemon, SIGKILL);
    std::remove(log.c_str());
    std::remove((log + ".pid").c_str());
}

TEST(Files, AScratchDirectoryLeftByADeadProcessIsRemovedByTheNext) {
    namespace fs = std::filesystem;
    const fs::path base = scratch("tmpdir");
    fs::create_directories(base);
    setenv("TMPDIR", base.c_str(), 1);
    const pid_t dead = fork();
    if (dead == 0) _exit(0);
    int st = 0;
    waitpid(dead, &st, 0);
    const fs::path abandoned = base / ("gridcoll-test-" + std::to_string(dead) + "-abcdef");
    const fs::path live = base / ("gridcoll-test-" + std::to_string(getppid()) + "-abcdef");
    fs::create_directories(abandoned), fs::create_directories(live);
    std::ofstream(abandoned / "platform.xml") << "x";
    {
        const gridcoll::sys::ScratchDir mine("gridcoll-test-");
        EXPECT_TRUE(fs::is_directory(mine.path()));
        EXPECT_FALSE(fs::exists(abandoned)) << "the directory of a dead process was left";
        EXPECT_TRUE(fs::exists(live)) << "the directory of a live process was removed";
    }
    unsetenv("TMPDIR");
    fs::remove_all(base);
}

// An output path that is a symbolic link keeps the link (the file it names gets the text), a
// FIFO or device is written in place (renaming over it would replace it), a directory or a
// missing directory is an error naming the path asked for, never the temporary file.
TEST(Files, OutputsKeepLinksAndSpecialFiles) {
    namespace fs = std::filesystem;
    const fs::path base = scratch("outputs");
    fs::remove_all(base);
    fs::create_directories(base);
    std::ofstream(base / "real.xml") << "old";
    fs::create_symlink(base / "real.xml", base / "link.xml");
    gridcoll::sys::write_output((base / "link.xml").string(), "new");
    EXPECT_TRUE(fs::is_symlink(base / "link.xml"));
    std::string got;
    std::getline(std::ifstream(base / "real.xml"), got);
    EXPECT_EQ(got, "new");
    fs::create_directories(base / "sub");  // a relative link, and one whose file does not exist yet
    fs::create_symlink("sub/made.xml", base / "dangling.xml");
    gridcoll::sys::write_output((base / "dangling.xml").string(), "made");
    EXPECT_TRUE(fs::is_symlink(base / "dangling.xml"));
    std::getline(std::ifstream(base / "sub" / "made.xml"), got);
    EXPECT_EQ(got, "made");
    if (geteuid() != 0) {  // a regression here must not replace the machine's /dev/null
        gridcoll::sys::write_output("/dev/null", "dropped");
        EXPECT_TRUE(fs::is_character_file("/dev/null"));
    }
    ASSERT_EQ(mkfifo((base / "fifo").c_str(), 0600), 0);
    std::thread reader([&] { std::getline(std::ifstream(base / "fifo"), got); });
    gridcoll::sys::write_output((base / "fifo").string(), "through\n");
    reader.join();
    EXPECT_EQ(got, "through");
    EXPECT_TRUE(fs::is_fifo(base / "fifo"));
    for (const fs::path& bad : {base, base / "no-dir" / "out.xml"}) {
        try {
            gridcoll::sys::write_output(bad.string(), "x");
            ADD_FAILURE() << "no error for " << bad;
        } catch (const gridcoll::Error& e) {
            EXPECT_NE(std::string(e.what()).find("'" + bad.string() + "'"), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find(".tmp"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(base), fs::directory_iterator{}), 5);  // real, link, fifo, sub, dangling
    fs::remove_all(base);
}
