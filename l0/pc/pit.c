/* pit.c: TSC calibration against PIT channel 2 (gated through port 0x61), best of several runs. */
#include "l0/pc/pit.h"
#include "shim/x86.h"

static uint64_t one_run(uint32_t count)
{
    outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01));    /* gate on, speaker off */
    outb(0x43, 0xb0);                                       /* ch 2, lo/hi, mode 0 */
    outb(0x42, count & 0xff);
    outb(0x42, (count >> 8) & 0xff);
    uint64_t t0 = rdtsc(), t1;
    for (;;) {
        t1 = rdtsc();
        if (inb(0x61) & 0x20)
            break;
        if (t1 - t0 > (1ull << 36))                         /* ~20 s even at 3 GHz: no PIT */
            return 0;
    }
    return (t1 - t0) * PIT_HZ / count;
}

uint64_t pit_calibrate_tsc(void)
{
    const uint32_t count = PIT_HZ / 20;                     /* 50 ms */
    uint64_t best = 0;

    /* a late look at OUT2 only lengthens a run, so the smallest result is the best */
    for (int i = 0; i < 3; i++) {
        uint64_t hz = one_run(count);
        if (hz && (!best || hz < best))
            best = hz;
    }
    return best;
}
