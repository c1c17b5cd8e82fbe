/* test_frame.c: the frame allocator: placement, alignment, limits, ownership, double frees, pools
 * side by side, and a long random run checked against a model. */
#include <stdlib.h>
#include <string.h>

#include "shim/frame.h"
#include "harness.h"
#include "shim/xerrno.h"

static struct frame_map map;
static uint8_t *state;

static void new_map(uint64_t nr)
{
    free(state);
    state = malloc(nr);
    frame_map_init(&map, state, nr);
}

static void test_basic(void)
{
    struct frame_pool p;

    new_map(0x1000);
    frame_pool_init(&p, "t", &map, 0);
    CHECK_EQ(frame_pool_add(&p, 0x100, 0x200), 0);
    CHECK_EQ(frame_pool_add(&p, 0x300, 0x400), 0);
    CHECK_EQ(frame_pool_add(&p, 0x180, 0x190), -XEN_EEXIST);        /* overlap */
    CHECK_EQ(frame_pool_add(&p, 0xf00, 0x1001), -XEN_EINVAL);       /* past the map */
    CHECK_EQ(frame_pool_add(&p, 0x200, 0x300), 0);
    CHECK_EQ(p.free_frames, 0x300);
    CHECK_EQ(frame_pool_check(&p), 0);

    CHECK_EQ(frame_alloc(&p, 1, 0, 0, FRAME_LOWEST), 0x100);
    CHECK_EQ(frame_alloc(&p, 1, 0, 0, FRAME_HIGHEST), 0x3ff);
    CHECK_EQ(frame_alloc(&p, 16, 4, 0, FRAME_LOWEST), 0x110);       /* aligned to 16 */
    CHECK_EQ(frame_alloc(&p, 0x10, 8, 0, FRAME_HIGHEST), 0x300);    /* 0x3f0.. is blocked at 0x3ff */
    CHECK_EQ(frame_alloc(&p, 4, 0, 0x104, FRAME_HIGHEST), -XEN_ENOMEM); /* 0x101..0x103 is too small */
    CHECK_EQ(frame_alloc(&p, 3, 0, 0x104, FRAME_HIGHEST), 0x101);
    CHECK_EQ(frame_alloc(&p, 3, 0, 0x104, FRAME_LOWEST), -XEN_ENOMEM);
    CHECK_EQ(frame_alloc(&p, 0x1000, 0, 0, FRAME_LOWEST), -XEN_ENOMEM);
    CHECK_EQ(frame_alloc(&p, 0, 0, 0, FRAME_LOWEST), -XEN_EINVAL);
    CHECK_EQ(frame_pool_check(&p), 0);

    CHECK_EQ(frame_free(&p, 0x100, 1), 0);
    CHECK_EQ(frame_free(&p, 0x100, 1), -XEN_EEXIST);               /* double free */
    CHECK_EQ(frame_free(&p, 0x104, 2), -XEN_EEXIST);               /* never allocated */
    CHECK_EQ(frame_free(&p, 0x500, 1), -XEN_EPERM);                /* a hole */
    CHECK_EQ(frame_free(&p, 0x3ff, 2), -XEN_EPERM);                /* runs past the pool */
    CHECK_EQ(frame_free(&p, 0xfff, 2), -XEN_EINVAL);               /* runs past the map */
    CHECK(frame_is_free(&p, 0x100));
    CHECK(!frame_is_free(&p, 0x101));
    CHECK(frame_pool_owns(&p, 0x100, 0x300));
    CHECK(!frame_pool_owns(&p, 0xff, 2));
    CHECK_EQ(frame_pool_check(&p), 0);
    CHECK_EQ(frame_alloc(&p, 1, 0, 0, FRAME_LOWEST), 0x100);       /* the freed one comes back first */
}

static void test_remove_carve(void)
{
    struct frame_pool p;
    uint64_t pfn = 0;

    new_map(0x1000);
    frame_pool_init(&p, "t", &map, 1);
    CHECK_EQ(frame_pool_add(&p, 0, 0x1000), 0);
    CHECK_EQ(frame_pool_remove(&p, 0x10, 0x20), 0);                /* a hole */
    CHECK_EQ(frame_pool_remove(&p, 0x18, 0x30), 0);                /* partly removed already */
    CHECK_EQ(frame_pool_remove(&p, 0xff0, 0x2000), 0);             /* past the end is clipped */
    CHECK_EQ(frame_pool_remove(&p, 0x5000, 0x6000), 0);            /* wholly past it: nothing */
    CHECK_EQ(frame_pool_carve(&p, 0x40, 0x50), 0);                 /* a module: used, still ours */
    CHECK_EQ(p.total_frames, 0x1000 - 0x20 - 0x10);
    CHECK_EQ(p.free_frames, 0x1000 - 0x20 - 0x10 - 0x10);
    CHECK_EQ(frame_pool_next_free(&p, &pfn), 0x10);
    CHECK_EQ(pfn, 0);
    pfn = 0x10;
    CHECK_EQ(frame_pool_next_free(&p, &pfn), 0x40);
    CHECK_EQ(pfn, 0x30);
    CHECK_EQ(frame_free(&p, 0x10, 1), -XEN_EPERM);                 /* removed: not ours any more */
    CHECK_EQ(frame_free(&p, 0x40, 0x10), 0);                       /* carved: ours to free */
    CHECK_EQ(frame_pool_check(&p), 0);
}

/* Ballooning: a freed frame given back to L0 leaves the pool (ABSENT), used ones stay, and the
 * frame can be added again once L0 backs it. */
static void test_unback(void)
{
    struct frame_pool p;

    new_map(0x100);
    frame_pool_init(&p, "t", &map, 1);
    CHECK_EQ(frame_pool_add(&p, 0, 0x100), 0);
    CHECK_EQ(frame_alloc(&p, 0x100, 0, 0, FRAME_LOWEST), 0);
    CHECK_EQ(frame_free(&p, 0x20, 4), 0);
    CHECK_EQ(frame_pool_unback(&p, 0x1f, 0x23), 0);                /* 0x1f is used: it stays */
    CHECK_EQ(p.total_frames, 0x100 - 3);
    CHECK_EQ(p.free_frames, 1);
    CHECK(!frame_pool_owns(&p, 0x20, 1));
    CHECK(frame_pool_owns(&p, 0x1f, 1));
    CHECK_EQ(frame_free(&p, 0x21, 1), -XEN_EPERM);                 /* not ours any more */
    CHECK_EQ(frame_alloc(&p, 2, 0, 0, FRAME_LOWEST), -XEN_ENOMEM);
    CHECK_EQ(frame_alloc(&p, 1, 0, 0, FRAME_LOWEST), 0x23);
    CHECK_EQ(frame_pool_add(&p, 0x20, 0x22), 0);                   /* backed again */
    CHECK_EQ(frame_pool_unback(&p, 0x200, 0x300), -XEN_EINVAL);    /* past the map */
    CHECK_EQ(frame_alloc(&p, 2, 1, 0, FRAME_LOWEST), 0x20);
    CHECK_EQ(p.total_frames, 0x100 - 1);
    CHECK_EQ(frame_pool_check(&p), 0);
}

static void test_two_pools(void)
{
    struct frame_pool guest, shim;

    new_map(0x140000);
    frame_pool_init(&guest, "guest", &map, 1);
    frame_pool_init(&shim, "shim", &map, 0);
    CHECK_EQ(frame_pool_add(&guest, 1, 0x9f), 0);
    CHECK_EQ(frame_pool_add(&guest, 0x100, 0x20000), 0);
    CHECK_EQ(frame_pool_add(&guest, 0x100000, 0x140000), 0);       /* above 4 GiB */
    CHECK_EQ(frame_pool_add(&shim, 0x50, 0x60), -XEN_EEXIST);      /* already the guest's */
    CHECK_EQ(frame_pool_transfer(&guest, &shim, 1, 0x100), 0);     /* one page below 1 MiB */
    CHECK_EQ(frame_alloc(&shim, 1, 0, 0x100, FRAME_LOWEST), 0x9e);
    CHECK_EQ(frame_pool_transfer(&guest, &shim, 0x400, 0x100000), 0);
    CHECK_EQ(shim.total_frames, 0x401);
    CHECK_EQ(frame_alloc(&shim, 1, 0, 0, FRAME_LOWEST), 0x20000 - 0x400);  /* the top below 4 GiB */
    CHECK_EQ(guest.total_frames, 0x9e + 0x1ff00 + 0x40000 - 0x401);
    CHECK_EQ(frame_pool_check(&guest), 0);
    CHECK_EQ(frame_pool_check(&shim), 0);
    /* a shim frame freed into the guest pool, or a guest frame into the shim's: refused */
    CHECK_EQ(frame_free(&guest, 0x20000 - 0x400, 1), -XEN_EPERM);
    int64_t g = frame_alloc(&guest, 1, 0, 0, FRAME_LOWEST);
    CHECK_EQ(g, 1);
    CHECK_EQ(frame_free(&shim, (uint64_t)g, 1), -XEN_EPERM);
    CHECK_EQ(frame_free(&shim, 0x20000 - 0x400, 1), 0);
    CHECK_EQ(frame_free(&guest, (uint64_t)g, 1), 0);
    /* big aligned allocations above 4 GiB */
    CHECK_EQ(frame_alloc(&guest, 512, 9, 0, FRAME_HIGHEST), 0x140000 - 512);
    CHECK_EQ(frame_alloc(&guest, 0x40000, 0, 0, FRAME_LOWEST), -XEN_ENOMEM);
    CHECK_EQ(frame_pool_transfer(&guest, &shim, 0x1000000, 0), -XEN_ENOMEM);
    CHECK_EQ(frame_pool_check(&guest), 0);
    CHECK_EQ(frame_pool_check(&shim), 0);
}

/* Random allocations and frees against a model of which frames are free. */
static void test_random(void)
{
    enum { N = 2048 };
    static unsigned char model[N];      /* 1 = free */
    struct frame_pool p;
    struct { int64_t pfn; uint64_t nr; } live[512];
    unsigned nlive = 0, mismatches = 0, bad_checks = 0, allocs = 0;

    srand(12345);
    new_map(N);
    frame_pool_init(&p, "t", &map, 0);
    frame_pool_add(&p, 16, N / 2);
    frame_pool_add(&p, N / 2 + 8, N);
    memset(model, 0, sizeof(model));
    memset(model + 16, 1, N / 2 - 16);
    memset(model + N / 2 + 8, 1, N / 2 - 8);
    for (int step = 0; step < 20000; step++) {
        if (nlive < 512 && (rand() % 3 || !nlive)) {
            uint64_t nr = 1 + (uint64_t)(rand() % 8);
            unsigned order = (unsigned)(rand() % 3);
            uint64_t limit = rand() % 4 ? 0 : (uint64_t)(rand() % N);
            enum frame_policy pol = rand() % 2 ? FRAME_LOWEST : FRAME_HIGHEST;
            int64_t pfn = frame_alloc(&p, nr, order, limit, pol);
            /* the model says whether some fitting run existed, and which one the policy picks */
            int64_t want = -1;
            uint64_t end = limit ? limit : N;
            for (uint64_t s = 0; s + nr <= end; s += 1u << order) {
                uint64_t i = 0;
                while (i < nr && model[s + i])
                    i++;
                if (i == nr) {
                    want = (int64_t)s;
                    if (pol == FRAME_LOWEST)
                        break;
                }
            }
            mismatches += pfn != (want < 0 ? -XEN_ENOMEM : want);
            if (pfn >= 0) {
                allocs++;
                memset(model + pfn, 0, nr);
                live[nlive].pfn = pfn;
                live[nlive++].nr = nr;
            }
        } else {
            unsigned k = (unsigned)rand() % nlive;
            mismatches += frame_free(&p, (uint64_t)live[k].pfn, live[k].nr) != 0;
            memset(model + live[k].pfn, 1, live[k].nr);
            live[k] = live[--nlive];
        }
        if (step % 16 == 0)
            bad_checks += frame_pool_check(&p) != 0;
    }
    uint64_t free_model = 0;
    for (unsigned i = 0; i < N; i++) {
        free_model += model[i];
        mismatches += model[i] != frame_is_free(&p, i);
    }
    CHECK_EQ(mismatches, 0);
    CHECK_EQ(bad_checks, 0);
    CHECK(allocs > 5000);
    CHECK_EQ(p.free_frames, free_model);
    while (nlive) {
        nlive--;
        CHECK_EQ(frame_free(&p, (uint64_t)live[nlive].pfn, live[nlive].nr), 0);
    }
    CHECK_EQ(p.free_frames, N - 16 - 8);
    CHECK_EQ(frame_pool_check(&p), 0);
}

void test_frame(void)
{
    test_basic();
    test_remove_carve();
    test_unback();
    test_two_pools();
    test_random();
    free(state);
    state = NULL;
}
