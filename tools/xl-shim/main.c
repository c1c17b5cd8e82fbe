/* main.c: xl-shim's command line: dispatch, help texts, convert/create/stats. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xlshim.h"

const char exit_codes_help[] =
    "Exit codes:\n"
    "  0  success\n"
    "  1  bad command line\n"
    "  2  config file missing or unreadable\n"
    "  3  config does not parse (the line libxlutil reports), or has a value xl rejects\n"
    "  4  config is not a PV guest (type=\"hvm\"/\"pvh\" or builder=\"hvm\")\n"
    "  5  no usable Xen on this host (check, create, stats)\n"
    "  6  xl could not be run, or xl create failed\n"
    "  7  stats: the domain does not run this project's shim (no stats page)\n"
    "  8  internal error (out of memory, cannot write the output, no consistent snapshot)\n"
    "  9  check: the shim is not installed at the path, or is not PVH-bootable;\n"
    "     stats: the domain's shim image cannot be read\n"
    " 10  stats: no such domain, or it is being destroyed\n"
    " 11  stats: permission denied (run as root in dom0)\n";

/* One line on stderr: "xl-shim: " PREFIX MESSAGE. */
static void say(const char *prefix, const char *fmt, va_list ap)
{
    fprintf(stderr, "xl-shim: %s", prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}

static const char usage_main[] =
    "Usage: xl-shim COMMAND [options]\n"
    "Puts legacy Xen PV guests into the pvshim (a PVH container with a small PV hypervisor).\n\n"
    "Commands:\n"
    "  convert PV.cfg        print a config that runs the PV guest in the shim\n"
    "  create PV.cfg [xl-options]   convert, then run 'xl create' on the result\n"
    "  check                 is this a Xen host, does it do PVH, is the shim installed\n"
    "  stats DOMAIN          the shim's counters for a running guest\n"
    "  help [COMMAND]        this text, or a command's\n\n"
    "'xl-shim COMMAND --help' describes each command.\n\n";

static const char usage_convert[] =
    "Usage: xl-shim convert [options] PV.cfg\n"
    "Print to stdout an xl config that runs the PV guest of PV.cfg inside the shim:\n"
    "the original text is kept (comments too), the lines setting type, builder, memory,\n"
    "maxmem, pvshim, pvshim_path and pvshim_extra are commented out ('#xl-shim# '), and a\n"
    "block at the end sets type=\"pvh\", pvshim=1, pvshim_path, memory (+ the shim's\n"
    "4 MiB + 1/512 of RAM) and maxmem. Settings that do not carry over are warned about on\n"
    "stderr, one line each.\n\n"
    "Options:\n"
    "  --shim PATH        pvshim_path (default " DEFAULT_SHIM_PATH ")\n"
    "  --shim-args ARGS   pvshim_extra: added to the shim's command line\n"
    "  --keep-memory      keep memory/maxmem as they are (the shim's share comes out of them)\n"
    "  -o, --output FILE  write FILE (atomically) instead of stdout\n"
    "  -h, --help         this text\n\n";

static const char usage_create[] =
    "Usage: xl-shim create [options] PV.cfg [xl-create-options and KEY=VALUE...]\n"
    "Convert PV.cfg (see 'xl-shim convert --help') into a temporary file, run\n"
    "'xl create TMPFILE xl-create-options...', wait for it, remove the file and exit 0 if xl\n"
    "succeeded. Everything after PV.cfg goes to xl unchanged (e.g. -c, -p, -q, memory=...).\n"
    "Needs Xen (checked with libxenctrl first).\n\n"
    "Options (before PV.cfg):\n"
    "  --shim PATH, --shim-args ARGS, --keep-memory   as for convert\n"
    "  -h, --help         this text\n\n"
    "Environment: XL names the xl binary (default: xl on PATH); TMPDIR the temp directory.\n\n";

const char usage_check[] =
    "Usage: xl-shim check [--shim PATH]\n"
    "Report whether this is a Xen host (libxenctrl), its Xen version, whether it can run PVH\n"
    "guests (HVM support), and whether the shim is installed at PATH (default\n"
    DEFAULT_SHIM_PATH ") and which build it is (ELF notes, size, fingerprint).\n\n"
    "Options:\n"
    "  --shim PATH        the shim configs will point to\n"
    "  -h, --help         this text\n\n";

const char usage_stats[] =
    "Usage: xl-shim stats [--json] DOMAIN\n"
    "       xl-shim stats [--json] --page FILE\n"
    "Print the counters of the shim DOMAIN (a name or domid) runs in: hypercalls from the\n"
    "guest and to L0 (by op), bounced exceptions, emulated instructions, IPIs, TLB flushes,\n"
    "CR4 writes, page-table validations. The shim refreshes them every second while it runs\n"
    "and a last time when it shuts down (a domain kept with on_poweroff=\"preserve\" still\n"
    "shows them). Reads the domain's shim image (pvshim_path) for where its stats page is,\n"
    "then maps that page read-only; needs root in dom0. Counters are defined in\n"
    "include/public/pvshim-stats.h; ones the shim does not count yet read 0.\n\n"
    "Options:\n"
    "  --json             one JSON object instead of the table\n"
    "  --page FILE        decode a saved copy of a stats page instead of a domain's\n"
    "  -h, --help         this text\n\n";

void usage(const char *text, FILE *f)
{
    fputs(text, f);
    fputs(exit_codes_help, f);
}

enum { OPT_SHIM = 256, OPT_SHIM_ARGS, OPT_KEEP_MEM };

static const struct option conv_longopts[] = {
    { "shim", required_argument, NULL, OPT_SHIM },
    { "shim-args", required_argument, NULL, OPT_SHIM_ARGS },
    { "keep-memory", no_argument, NULL, OPT_KEEP_MEM },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Parse convert/create options; returns -1 on success (optind at PV.cfg), else an exit code. */
static int conv_options(int argc, char **argv, struct conv_opts *o, const char **output,
                        const char *help, bool allow_output)
{
    int c;
    o->shim_path = DEFAULT_SHIM_PATH;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, allow_output ? "ho:" : "+h", conv_longopts, NULL)) != -1) {
        switch (c) {
        case OPT_SHIM:
            if (!*optarg) {
                err("--shim needs a path");
                return EX_USAGE;
            }
            o->shim_path = optarg;
            break;
        case OPT_SHIM_ARGS:
            o->shim_args = optarg;
            break;
        case OPT_KEEP_MEM:
            o->keep_memory = true;
            break;
        case 'o':
            if (!allow_output) {
                err("unknown option -o");
                return EX_USAGE;
            }
            *output = optarg;
            break;
        case 'h':
            usage(help, stdout);
            return EX_OK;
        default:
            if (optopt == 'o' || optopt >= OPT_SHIM)
                err("option %s needs an argument", argv[optind - 1]);
            else
                err("unknown option %s (see xl-shim %s --help)", argv[optind - 1], argv[0]);
            return EX_USAGE;
        }
    }
    if (optind >= argc) {
        err("%s: which config? (see xl-shim %s --help)", argv[0], argv[0]);
        return EX_USAGE;
    }
    return -1;
}

/* Write text to path through a temp file in the same directory and rename(): all or nothing. */
static int write_atomic(const char *path, const char *text)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.xl-shim-XXXXXX", path) < 0)
        return EX_INTERNAL;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        err("cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return EX_INTERNAL;
    }
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int bad = w < 0 || (size_t)w != n || fchmod(fd, 0644) || fsync(fd);
    bad |= close(fd);
    if (bad || rename(tmp, path)) {
        err("cannot write %s: %s", path, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return EX_INTERNAL;
    }
    free(tmp);
    return EX_OK;
}

int cmd_convert(int argc, char **argv)
{
    struct conv_opts o = { 0 };
    const char *output = NULL;
    int code = conv_options(argc, argv, &o, &output, usage_convert, true);
    if (code >= 0)
        return code;
    if (optind + 1 != argc) {
        err("convert takes one config, got %d arguments", argc - optind);
        return EX_USAGE;
    }
    char *text = convert_config(argv[optind], &o, &code);
    if (!text)
        return code;
    if (output)
        code = write_atomic(output, text);
    else if (fputs(text, stdout) == EOF || fflush(stdout)) {
        err("cannot write the output: %s", strerror(errno));
        code = EX_INTERNAL;
    }
    free(text);
    return code;
}

int cmd_create(int argc, char **argv)
{
    struct conv_opts o = { 0 };
    int code = conv_options(argc, argv, &o, NULL, usage_create, false);
    if (code >= 0)
        return code;
    const char *cfg = argv[optind];

    char why[256];
    if (!getenv("XL_SHIM_ASSUME_XEN") && xen_present(why, sizeof(why))) {
        err("no Xen: %s", why);
        return EX_NOXEN;
    }
    char *text = convert_config(cfg, &o, &code);
    if (!text)
        return code;

    const char *dir = getenv("TMPDIR");
    char *tmp = NULL;
    if (asprintf(&tmp, "%s/xl-shim-XXXXXX.cfg", dir && *dir ? dir : "/tmp") < 0) {
        free(text);
        return EX_INTERNAL;
    }
    int fd = mkstemps(tmp, 4);
    if (fd < 0) {
        err("cannot create a temporary file %s: %s", tmp, strerror(errno));
        free(text);
        free(tmp);
        return EX_INTERNAL;
    }
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int bad = w < 0 || (size_t)w != n;
    bad |= close(fd);
    free(text);
    if (bad) {
        err("cannot write %s: %s", tmp, strerror(errno ? errno : EIO));
        unlink(tmp);
        free(tmp);
        return EX_INTERNAL;
    }

    const char *xl = getenv("XL");
    if (!xl || !*xl)
        xl = "xl";
    int nxl = argc - optind - 1;
    char **xargv = calloc((size_t)nxl + 4, sizeof(*xargv));
    int pfd[2];
    if (!xargv || pipe2(pfd, O_CLOEXEC)) {
        err("out of resources: %s", strerror(errno));
        unlink(tmp);
        return EX_INTERNAL;
    }
    xargv[0] = (char *)xl;
    xargv[1] = "create";
    xargv[2] = tmp;
    for (int i = 0; i < nxl; i++)
        xargv[3 + i] = argv[optind + 1 + i];

    /* While xl runs (perhaps attached to the console), ^C is for it; we stay to clean up. */
    struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
    sigaction(SIGINT, &ign, &oint);
    sigaction(SIGQUIT, &ign, &oquit);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &oint, NULL);
        sigaction(SIGQUIT, &oquit, NULL);
        close(pfd[0]);
        execvp(xl, xargv);
        int e = errno;
        ssize_t r = write(pfd[1], &e, sizeof(e));
        (void)r;
        _exit(127);
    }
    close(pfd[1]);
    int status = 0, exec_errno = 0;
    if (pid > 0) {
        if (read(pfd[0], &exec_errno, sizeof(exec_errno)) != (ssize_t)sizeof(exec_errno))
            exec_errno = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    close(pfd[0]);
    unlink(tmp);
    free(xargv);
    if (pid < 0) {
        err("cannot fork: %s", strerror(errno));
        code = EX_INTERNAL;
    } else if (exec_errno) {
        err("cannot run %s: %s", xl, strerror(exec_errno));
        code = EX_XL;
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        code = EX_OK;
    } else {
        if (WIFEXITED(status))
            err("xl create failed (exit %d)", WEXITSTATUS(status));
        else
            err("xl create died (signal %d)", WTERMSIG(status));
        code = EX_XL;
    }
    free(tmp);
    return code;
}

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cmds[] = {
    { "convert", cmd_convert, usage_convert },
    { "create", cmd_create, usage_create },
    { "check", cmd_check, usage_check },
    { "stats", cmd_stats, usage_stats },
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        err("which command? (convert, create, check, stats; see xl-shim --help)");
        return EX_USAGE;
    }
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
        for (size_t i = 0; argc > 2 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
            if (!strcmp(argv[2], cmds[i].name)) {
                usage(cmds[i].help, stdout);
                return EX_OK;
            }
        usage(usage_main, stdout);
        return EX_OK;
    }
    if (!strcmp(c, "--version")) {
        printf("xl-shim %s\n", XLSHIM_VERSION);
        return EX_OK;
    }
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!strcmp(c, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    err("unknown command '%s' (see xl-shim --help)", c);
    return EX_USAGE;
}
