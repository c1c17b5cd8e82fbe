/* rtc.c: the wallclock standalone: the CMOS RTC (UTC, as QEMU keeps it by default) read once. */
#include "l0/pc/rtc.h"
#include "shim/time.h"
#include "shim/x86.h"

static uint8_t cmos(uint8_t reg)
{
    outb(0x70, reg);
    return inb(0x71);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

uint64_t rtc_wallclock_base(void)
{
    uint8_t t[7], again[7];
    static const uint8_t regs[7] = { 0x00, 0x02, 0x04, 0x07, 0x08, 0x09, 0x32 };

    /* read until two reads agree outside an update cycle (register A bit 7) */
    for (unsigned tries = 0; tries < 1000; tries++) {
        while (cmos(0x0a) & 0x80)
            cpu_relax();
        for (unsigned i = 0; i < 7; i++)
            t[i] = cmos(regs[i]);
        for (unsigned i = 0; i < 7; i++)
            again[i] = cmos(regs[i]);
        if (!memcmp(t, again, sizeof(t)))
            break;
    }
    uint64_t ns = now_ns();
    bool bcd = !(cmos(0x0b) & 0x04), h12 = !(cmos(0x0b) & 0x02);
    bool pm = t[2] & 0x80;
    t[2] &= 0x7f;
    if (bcd)
        for (unsigned i = 0; i < 7; i++)
            t[i] = (uint8_t)((t[i] >> 4) * 10 + (t[i] & 15));
    if (h12)
        t[2] = (uint8_t)(t[2] % 12 + (pm ? 12 : 0));
    unsigned year = t[6] ? t[6] * 100u + t[5] : 2000u + t[5];
    if (t[4] < 1 || t[4] > 12 || t[3] < 1 || t[3] > 31 || year < 1970)
        return 0;                       /* no RTC there (all ones) or nonsense: unknown */
    int64_t days = days_from_civil(year, t[4], t[3]);
    uint64_t sec = (uint64_t)days * 86400 + t[2] * 3600u + t[1] * 60u + t[0];
    uint64_t utc = sec * 1000000000ull;
    return utc > ns ? utc - ns : 0;
}
