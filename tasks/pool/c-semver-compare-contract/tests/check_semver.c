#include <stdio.h>
#include <string.h>
#include "semver.h"

static int fails;
#define CHECK(cond, ...) do { if (!(cond)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

static const char *valid[] = {
    "0.0.0", "1.2.3", "v1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
    "1.0.0-x.7.z.92", "1.0.0-x-y-z.--", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85",
    "1.0.0+21AF26D3----117B344092BD", "1.0.0-rc.1+build.001", "1.0.0-0A.is.legal",
    "99999999999999999999999.999999999999.99999999999999999", "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
    "2.0.0-rc.1+build.123", "1.0.0--", "1.0.0-a.0", NULL};
static const char *invalid[] = {
    "", "1", "1.2", "1.2.3.4", "01.1.1", "1.01.1", "1.1.01", "1.2.3-0123", "1.2.3-0123.0123",
    "1.2.3-", "1.2.3+", "1.2.3-alpha..1", "1.2.3-alpha.", "1.2.3+build..1", "1.2.3-al pha",
    "1.2.3 ", " 1.2.3", "V1.2.3", "vv1.2.3", "v", "1.2.3-@", "1.2.3+build#1", "-1.2.3",
    "+1.2.3", "1.2.-3", "1.2.3-rc.1+", "1..3", "a.b.c", "1.2.3\n", "1.2.3-01", NULL};

/* ascending precedence; entries in the same group {} compare equal */
static const char *order[][3] = {
    {"0.0.0-0", NULL}, {"0.0.0", NULL}, {"0.0.1", NULL}, {"0.1.0", NULL},
    {"1.0.0-0", NULL}, {"1.0.0-1", NULL}, {"1.0.0-2", NULL}, {"1.0.0-10", NULL}, {"1.0.0-10.0", NULL},
    {"1.0.0--", NULL}, {"1.0.0-A", NULL}, {"1.0.0-a", NULL},
    {"1.0.0-alpha", "v1.0.0-alpha+b1", "1.0.0-alpha+zzz"},
    {"1.0.0-alpha.1", NULL}, {"1.0.0-alpha.9", NULL}, {"1.0.0-alpha.10", NULL}, {"1.0.0-alpha.beta", NULL},
    {"1.0.0-alphabet", NULL}, {"1.0.0-beta", NULL}, {"1.0.0-beta.2", NULL}, {"1.0.0-beta.11", NULL},
    {"1.0.0-rc.1", NULL}, {"1.0.0", "v1.0.0", "1.0.0+build.7"},
    {"1.0.1", NULL}, {"1.2.0", NULL}, {"1.9.0", NULL}, {"1.10.0", NULL}, {"1.10.2", NULL},
    {"2.0.0", NULL}, {"10.0.0", NULL},
    {"18446744073709551615.0.0", NULL}, {"18446744073709551616.0.0-rc", NULL}, {"18446744073709551616.0.0", NULL},
    {"18446744073709551617.0.0", NULL}, {"36893488147419103232.0.0", NULL},
    {"99999999999999999999.0.0", NULL}, {"100000000000000000000.0.0", NULL},
};

int main(void)
{
    int r;
    for (int i = 0; valid[i]; i++)
        CHECK(semver_valid(valid[i]) == 1, "valid(\"%s\") should be 1", valid[i]);
    for (int i = 0; invalid[i]; i++) {
        CHECK(semver_valid(invalid[i]) == 0, "valid(\"%s\") should be 0", invalid[i]);
        r = 42;
        CHECK(semver_compare(invalid[i], "1.0.0", &r) == SEMVER_EINVAL && r == 42, "compare(\"%s\", 1.0.0) should be EINVAL", invalid[i]);
        CHECK(semver_compare("1.0.0", invalid[i], &r) == SEMVER_EINVAL && r == 42, "compare(1.0.0, \"%s\") should be EINVAL", invalid[i]);
        CHECK(semver_normalize(invalid[i], NULL, 0) == SEMVER_EINVAL, "normalize(\"%s\") should be EINVAL", invalid[i]);
    }
    CHECK(semver_valid(NULL) == 0, "valid(NULL) should be 0");
    CHECK(semver_compare(NULL, "1.0.0", &r) == SEMVER_EINVAL, "compare(NULL, ...) should be EINVAL");

    int groups = (int)(sizeof order / sizeof order[0]);
    for (int i = 0; i < groups; i++)
        for (int j = 0; j < groups; j++)
            for (int a = 0; a < 3 && order[i][a]; a++)
                for (int b = 0; b < 3 && order[j][b]; b++) {
                    int want = (i > j) - (i < j);
                    r = 42;
                    int rc = semver_compare(order[i][a], order[j][b], &r);
                    CHECK(rc == 0 && r == want, "compare(%s, %s): rc=%d result=%d, expected %d",
                          order[i][a], order[j][b], rc, r, want);
                }

    char buf[64];
    struct { const char *in, *out; } norm[] = {
        {"v1.2.3", "1.2.3"}, {"1.0.0-rc.1+build.5", "1.0.0-rc.1"}, {"v0.0.0+x", "0.0.0"},
        {"1.2.3----RC-SNAPSHOT.12.9.1--.12+788", "1.2.3----RC-SNAPSHOT.12.9.1--.12"},
        {"123456789012345678901234567890.0.1-a", "123456789012345678901234567890.0.1-a"}};
    for (size_t i = 0; i < sizeof norm / sizeof norm[0]; i++) {
        memset(buf, 'X', sizeof buf);
        int n = semver_normalize(norm[i].in, buf, sizeof buf);
        CHECK(n == (int)strlen(norm[i].out) && strcmp(buf, norm[i].out) == 0,
              "normalize(%s) gave %d '%.40s', expected '%s'", norm[i].in, n, buf, norm[i].out);
    }
    /* snprintf-style truncation */
    memset(buf, 'X', sizeof buf);
    int n = semver_normalize("v10.20.30-beta.2+meta", buf, 8);
    CHECK(n == 15 && memcmp(buf, "10.20.3", 8) == 0 && buf[8] == 'X', "truncating normalize: got %d '%.9s'", n, buf);
    memset(buf, 'X', sizeof buf);
    n = semver_normalize("1.2.3", buf, 1);
    CHECK(n == 5 && buf[0] == '\0' && buf[1] == 'X', "normalize with n=1: got %d", n);
    CHECK(semver_normalize("1.2.3-rc.1", NULL, 0) == 10, "normalize(NULL, 0) should return the length");

    if (fails) {
        printf("%d failure(s)\n", fails);
        return 1;
    }
    puts("semver ok");
    return 0;
}
