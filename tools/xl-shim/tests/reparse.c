/* reparse.c: test helper: parse an xl config with libxlutil and print the given settings,
 * one "key=value" line each (lists as [a|b|...], unset as <unset>); exit 3 if it does not parse. */
#include <errno.h>
#include <stdio.h>
#include <libxlutil.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: reparse FILE KEY...\n");
        return 1;
    }
    XLU_Config *c = xlu_cfg_init(stderr, argv[1]);
    if (!c || xlu_cfg_readfile(c, argv[1]))
        return 3;
    for (int i = 2; i < argc; i++) {
        const char *s;
        XLU_ConfigList *l;
        int n;
        if (!xlu_cfg_get_string(c, argv[i], &s, 1)) {
            printf("%s=%s\n", argv[i], s);
        } else if (!xlu_cfg_get_list(c, argv[i], &l, &n, 1)) {
            printf("%s=[", argv[i]);
            for (int k = 0; k < n; k++)
                printf("%s%s", k ? "|" : "", xlu_cfg_get_listitem(l, k));
            printf("]\n");
        } else {
            printf("%s=<unset>\n", argv[i]);
        }
    }
    xlu_cfg_destroy(c);
    return 0;
}
