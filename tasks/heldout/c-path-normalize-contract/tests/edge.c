#include <stdio.h>
#include <string.h>
#include "pathnorm.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
    char buf[16];
    long n;
    CHECK(path_normalize(NULL, buf, sizeof buf) == -1, "NULL input");
    CHECK(path_normalize("", buf, sizeof buf) == -1, "empty input");
    CHECK(path_join(NULL, "a", buf, sizeof buf) == -1, "join NULL base");
    CHECK(path_join("a", NULL, buf, sizeof buf) == -1, "join NULL rel");
    CHECK(path_join("", "a", buf, sizeof buf) == -1, "join empty base");
    CHECK(path_join("a", "", buf, sizeof buf) == -1, "join empty rel");

    memset(buf, 'X', sizeof buf);
    n = path_normalize("/usr//local/./lib/../share/", buf, 8);
    CHECK(n == 16 && memcmp(buf, "/usr/lo", 8) == 0 && buf[8] == 'X', "truncation: n=%ld buf=%.9s", n, buf);
    memset(buf, 'X', sizeof buf);
    n = path_normalize("a/b", buf, 1);
    CHECK(n == 3 && buf[0] == '\0' && buf[1] == 'X', "outsz=1: n=%ld", n);
    memset(buf, 'X', sizeof buf);
    n = path_normalize("a/b", buf, 0);
    CHECK(n == 3 && buf[0] == 'X', "outsz=0 must not write: n=%ld", n);
    CHECK(path_normalize("/x/y", NULL, 0) == 4, "size query");
    memset(buf, 'X', sizeof buf);
    n = path_join("/srv/app", "../data/./f", buf, 5);
    CHECK(n == 11 && memcmp(buf, "/srv", 5) == 0 && buf[5] == 'X', "join truncation: n=%ld %.6s", n, buf);
    memset(buf, 'X', sizeof buf);
    n = path_normalize("abc", buf, 4);
    CHECK(n == 3 && strcmp(buf, "abc") == 0, "exact fit: n=%ld", n);
    if (fails) { printf("%d failure(s)\n", fails); return 1; }
    puts("edge ok");
    return 0;
}
