#define _GNU_SOURCE
#include "CTerminal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

// Written once by alarmd_terminal_enter before `active` is set, read by the handler after.
static struct termios saved_settings;
static int saved_input = -1;
static int saved_output = -1;
// 1 while a terminal is raw; whoever swaps it to 0 restores, so the handler and a normal restore
// on another thread never both do it. A lock-free atomic is async-signal-safe.
static atomic_int active = 0;
static atomic_int exit_hook_registered = 0;

// These end the process with the default action, as a shell expects (exit status 128 + signal;
// a core for SIGQUIT), even where the Swift runtime's backtracer had SIGQUIT: after a SIGQUIT from
// kill(1) it prints a backtrace and lets the process run on.
static const int terminating_signals[] = {SIGTERM, SIGHUP, SIGQUIT, SIGINT};
// These go to their previous handler (Swift's backtracer) after the terminal is back: for a real
// fault by returning, so the faulting instruction faults again; for abort(3) or kill(1) by raising.
static const int crash_signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE};

#define SIGNAL_COUNT (sizeof terminating_signals / sizeof *terminating_signals + \
                      sizeof crash_signals / sizeof *crash_signals)
static int handled_signals[SIGNAL_COUNT];
static struct sigaction previous_actions[SIGNAL_COUNT];
static int installed[SIGNAL_COUNT];

static const char enter_screen[] = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J";
static const char leave_screen[] = "\x1b[0m\x1b[?25h\x1b[?1049l";

static void write_all(int fd, const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(fd, bytes, count);
        if (written < 0) {
            if (errno == EINTR) continue;
            return;
        }
        bytes += written;
        count -= (size_t)written;
    }
}

// Async-signal-safe: an atomic swap, tcsetattr and write.
static void restore_terminal_settings(void) {
    if (!atomic_exchange(&active, 0)) return;
    tcsetattr(saved_input, TCSANOW, &saved_settings);
    if (saved_output >= 0) write_all(saved_output, leave_screen, sizeof leave_screen - 1);
}

static int is_crash_signal(int signal_number) {
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++) {
        if (crash_signals[i] == signal_number) return 1;
    }
    return 0;
}

static void on_signal(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    int saved_errno = errno;
    restore_terminal_settings();
    int crash = is_crash_signal(signal_number);
    if (crash) {
        for (size_t i = 0; i < SIGNAL_COUNT; i++) {
            if (handled_signals[i] == signal_number && installed[i]) {
                sigaction(signal_number, &previous_actions[i], NULL);
            }
        }
    } else {
        struct sigaction default_action;
        memset(&default_action, 0, sizeof default_action);
        default_action.sa_handler = SIG_DFL;
        sigemptyset(&default_action.sa_mask);
        sigaction(signal_number, &default_action, NULL);
    }
    // The signal is blocked while this handler runs: raised now, it is delivered with the new
    // disposition as soon as the handler returns. A real fault (si_code > 0) needs no raise: the
    // faulting instruction runs again.
    if (!crash || info == NULL || info->si_code <= 0) raise(signal_number);
    errno = saved_errno;
}

static void uninstall_handlers(void) {
    for (size_t i = 0; i < SIGNAL_COUNT; i++) {
        if (installed[i]) sigaction(handled_signals[i], &previous_actions[i], NULL);
        installed[i] = 0;
    }
}

static void install_handlers(void) {
    size_t count = 0;
    for (size_t i = 0; i < sizeof terminating_signals / sizeof *terminating_signals; i++) {
        handled_signals[count++] = terminating_signals[i];
    }
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; i++) {
        handled_signals[count++] = crash_signals[i];
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&action.sa_mask);
    for (size_t i = 0; i < SIGNAL_COUNT; i++) {
        installed[i] = 0;
        if (sigaction(handled_signals[i], NULL, &previous_actions[i]) != 0) continue;
        // A signal ignored on entry (SIGHUP under nohup) stays ignored.
        if (!(previous_actions[i].sa_flags & SA_SIGINFO) && previous_actions[i].sa_handler == SIG_IGN) continue;
        if (sigaction(handled_signals[i], &action, NULL) == 0) installed[i] = 1;
    }
}

int alarmd_terminal_enter(int input_fd, int output_fd) {
    if (atomic_load(&active)) return -EBUSY;
    struct termios settings;
    if (tcgetattr(input_fd, &settings) != 0) return -errno;
    saved_settings = settings;
    saved_input = input_fd;
    saved_output = output_fd;

    settings.c_lflag &= ~(tcflag_t)(ECHO | ICANON | ISIG | IEXTEN);
    settings.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR | IGNCR | BRKINT | INPCK | ISTRIP);
    settings.c_cflag |= CS8;
    settings.c_cc[VMIN] = 1;
    settings.c_cc[VTIME] = 0;

    if (!atomic_exchange(&exit_hook_registered, 1)) atexit(alarmd_terminal_restore);
    atomic_store(&active, 1);
    install_handlers();
    // TCSAFLUSH: keys typed before the simulator started are not taken as commands.
    if (tcsetattr(input_fd, TCSAFLUSH, &settings) != 0) {
        int saved_errno = errno;
        uninstall_handlers();
        atomic_store(&active, 0);
        return -saved_errno;
    }
    if (output_fd >= 0) write_all(output_fd, enter_screen, sizeof enter_screen - 1);
    return 0;
}

void alarmd_terminal_restore(void) {
    if (!atomic_load(&active)) return;
    // Handlers first: a signal arriving in between still finds the terminal to restore.
    uninstall_handlers();
    restore_terminal_settings();
}

int alarmd_terminal_size(int fd, int *rows, int *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -errno;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}
