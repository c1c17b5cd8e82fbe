/* test_cmdline.c: the shim's command-line parser: stock options, ours, bad values, unknowns, " -- ". */
#include <string.h>

#include "shim/cmdline.h"
#include "harness.h"

static struct shim_opts parse(const char *line)
{
    struct shim_opts o;

    cmdline_defaults(&o);
    cmdline_parse(line, &o);
    return o;
}

static void test_defaults(void)
{
    struct shim_opts o = parse("");

    CHECK(!o.pv_shim);
    CHECK_EQ(o.console, 0);
    CHECK_EQ(o.loglvl, -1);
    CHECK_EQ(o.global_pages, -1);
    CHECK_EQ(o.tlb_clock, -1);
    CHECK_EQ(o.assisted_flush, -1);
    CHECK_EQ(o.l0_steal, -1);
    CHECK_EQ(o.selftest, SELFTEST_OFF);
    CHECK_EQ(o.shim_mem, 0);
    CHECK_EQ(o.nr_notes, 0);
    CHECK(!o.has_guest_cmdline);
}

static void test_stock(void)
{
    /* xl's default shim command line, plus what the runner appends */
    struct shim_opts o = parse("pv-shim console=xen,pv selftest");

    CHECK(o.pv_shim);
    CHECK_EQ(o.console, CONS_XEN | CONS_PV);
    CHECK_EQ(o.selftest, SELFTEST_ON);
    CHECK_EQ(o.nr_notes, 0);

    o = parse("  loglvl=all   guest_loglvl=warning/error\t");
    CHECK_EQ(o.loglvl, LOG_DEBUG);
    CHECK_EQ(o.loglvl_rl, -1);
    CHECK_EQ(o.guest_loglvl, LOG_WARN);
    CHECK_EQ(o.guest_loglvl_rl, LOG_ERR);
    CHECK_EQ(o.nr_notes, 0);

    o = parse("console=com1 loglvl=none");
    CHECK_EQ(o.console, CONS_COM1);
    CHECK_EQ(o.loglvl, LOG_NONE);
    o = parse("console=none");
    CHECK_EQ(o.console, CONS_NONE);
    o = parse("console=");
    CHECK_EQ(o.console, CONS_NONE);
    o = parse("pv-shim=0");
    CHECK(!o.pv_shim);
}

static void test_shim_mem(void)
{
    struct shim_opts o = parse("shim_mem=64M");

    CHECK_EQ(o.shim_mem, 64ull << 20);
    o = parse("shim_mem=1024");                     /* Xen: no suffix means KiB */
    CHECK_EQ(o.shim_mem, 1ull << 20);
    o = parse("shim_mem=min:16M,max:128M");
    CHECK_EQ(o.shim_mem, 0);
    CHECK_EQ(o.shim_mem_min, 16ull << 20);
    CHECK_EQ(o.shim_mem_max, 128ull << 20);
    o = parse("shim_mem=min:1G,32M");
    CHECK_EQ(o.shim_mem, 32ull << 20);
    CHECK_EQ(o.shim_mem_min, 1ull << 30);
    o = parse("shim_mem=1048576B");
    CHECK_EQ(o.shim_mem, 0x100000);
    o = parse("shim_mem=12X");
    CHECK_EQ(o.nr_notes, 1);
    CHECK_EQ(o.shim_mem, 0);
    o = parse("shim_mem=max:,4M");
    CHECK_EQ(o.nr_notes, 1);
    o = parse("shim_mem=99999999999999999999T");
    CHECK_EQ(o.nr_notes, 1);
}

static void test_ours(void)
{
    struct shim_opts o = parse("global-pages tlb-clock=off assisted-flush=yes l0-steal");

    CHECK_EQ(o.xsave, -1);

    CHECK_EQ(o.global_pages, 1);
    CHECK_EQ(o.tlb_clock, 0);
    CHECK_EQ(o.assisted_flush, 1);
    CHECK_EQ(o.l0_steal, 1);
    CHECK_EQ(o.nr_notes, 0);
    CHECK_EQ(o.evtchn_fifo, -1);
    CHECK_EQ(o.xpti, -1);
    o = parse("xsave=off cpuid-faulting=off evtchn-fifo=off xpti=on");
    CHECK_EQ(o.xpti, 1);
    CHECK_EQ(o.xsave, 0);
    CHECK_EQ(o.cpuid_faulting, 0);
    CHECK_EQ(o.evtchn_fifo, 0);
    o = parse("no-xsave xsave");
    CHECK_EQ(o.xsave, 1);
    o = parse("xsave=sometimes");
    CHECK_EQ(o.xsave, -1);
    CHECK_EQ(o.nr_notes, 1);
    o = parse("no-global-pages no-tlb-clock no-assisted-flush");
    CHECK_EQ(o.global_pages, 0);
    CHECK_EQ(o.tlb_clock, 0);
    CHECK_EQ(o.assisted_flush, 0);
    o = parse("global-pages=maybe no-tlb-clock=1");
    CHECK_EQ(o.nr_notes, 2);
    CHECK_EQ(o.global_pages, -1);
    CHECK_EQ(o.tlb_clock, -1);
    o = parse("selftest=fault");
    CHECK_EQ(o.selftest, SELFTEST_FAULT);
    o = parse("selftest selftest=0");
    CHECK_EQ(o.selftest, SELFTEST_OFF);
    o = parse("selftest=perhaps");
    CHECK_EQ(o.selftest, SELFTEST_OFF);
    CHECK_EQ(o.nr_notes, 1);
}

static void test_unknown(void)
{
    struct shim_opts o = parse("noreboot sync_console=1 loglvl=loud console=com1,vga =x");

    CHECK_EQ(o.nr_notes, 5);
    CHECK(strstr(o.notes[0], "unknown option 'noreboot'") != NULL);
    CHECK(strstr(o.notes[1], "unknown option 'sync_console=1'") != NULL);
    CHECK(strstr(o.notes[2], "bad value in 'loglvl=loud'") != NULL);
    CHECK(strstr(o.notes[3], "console=com1,vga") != NULL);
    CHECK_EQ(o.console, 0);                         /* a bad list changes nothing */

    /* many problems: bounded, never fatal, known options still parsed */
    char line[1024] = "";
    for (int i = 0; i < 20; i++)
        strcat(line, "bogus ");
    strcat(line, "loglvl=error");
    o = parse(line);
    CHECK_EQ(o.nr_notes, CMDLINE_MAX_NOTES);
    CHECK_EQ(o.loglvl, LOG_ERR);

    /* a long option name is cut in the note, not overflowed */
    memset(line, 'a', 500);
    line[500] = '\0';
    o = parse(line);
    CHECK_EQ(o.nr_notes, 1);
    CHECK(strlen(o.notes[0]) < sizeof(o.notes[0]));
}

static void test_guest_part(void)
{
    struct shim_opts o = parse("pv-shim selftest -- console=hvc0  root=/dev/xvda1");

    CHECK(o.pv_shim);
    CHECK_EQ(o.selftest, SELFTEST_ON);
    CHECK(o.has_guest_cmdline);
    CHECK(!strcmp(o.guest_cmdline, "console=hvc0  root=/dev/xvda1"));
    CHECK_EQ(o.nr_notes, 0);
    o = parse("loglvl=info --");
    CHECK(o.has_guest_cmdline);
    CHECK(!strcmp(o.guest_cmdline, ""));
    o = parse("a--b");                              /* not a separator */
    CHECK(!o.has_guest_cmdline);
    CHECK_EQ(o.nr_notes, 1);
}

static void test_image_name(void)
{
    CHECK(!strcmp(cmdline_skip_image_name("/work/build/pvshim selftest"), "selftest"));
    CHECK(!strcmp(cmdline_skip_image_name("pvshim selftest"), "selftest"));
    CHECK(!strcmp(cmdline_skip_image_name("pvshim "), ""));
    CHECK(!strcmp(cmdline_skip_image_name("selftest loglvl=all"), "selftest loglvl=all"));
    CHECK(!strcmp(cmdline_skip_image_name("pv-shim console=xen"), "pv-shim console=xen"));
    CHECK(!strcmp(cmdline_skip_image_name("loglvl=all"), "loglvl=all"));
    CHECK(!strcmp(cmdline_skip_image_name("-- console=hvc0"), "-- console=hvc0"));
    CHECK(!strcmp(cmdline_skip_image_name(""), ""));
    CHECK(!strcmp(cmdline_skip_image_name("(hd0)/boot/shim.gz -- x"), "-- x"));
}

static void test_helpers(void)
{
    bool b;
    uint64_t v;

    CHECK(parse_bool("on", 2, &b) && b);
    CHECK(parse_bool("disable", 7, &b) && !b);
    CHECK(!parse_bool("onn", 3, &b));
    CHECK(!parse_bool("", 0, &b));
    CHECK(parse_size("2G", 2, &v) && v == 2ull << 30);
    CHECK(parse_size("1t", 2, &v) && v == 1ull << 40);
    CHECK(!parse_size("M", 1, &v));
    CHECK(!parse_size("12MB", 4, &v));
    CHECK(!strcmp(log_level_name(LOG_WARN), "warning"));
    CHECK(!strcmp(log_level_name(42), "?"));
}

void test_cmdline(void)
{
    test_defaults();
    test_stock();
    test_shim_mem();
    test_ours();
    test_unknown();
    test_guest_part();
    test_image_name();
    test_helpers();
}
