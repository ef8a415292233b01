#!/bin/bash
set -e
cd /app/semver
# step: implement parsing, validation, precedence and normalisation in src/semver.c
cat > src/semver.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "semver.h"

struct span { const char *p; size_t n; };
struct ver { struct span num[3]; struct span pre; };

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_ident(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'; }

static int all_digits(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit(p[i]))
            return 0;
    return 1;
}

/* dot-separated identifiers starting at *pp; stops at end or at `stop`. */
static int parse_idents(const char **pp, char stop, int numeric_rules, struct span *out)
{
    const char *p = *pp, *start = p;
    for (;;) {
        const char *id = p;
        while (is_ident(*p))
            p++;
        size_t n = (size_t)(p - id);
        if (n == 0)
            return -1;
        if (numeric_rules && n > 1 && id[0] == '0' && all_digits(id, n))
            return -1;
        if (*p == '.') {
            p++;
            continue;
        }
        if (*p == '\0' || (stop && *p == stop))
            break;
        return -1;
    }
    if (out) {
        out->p = start;
        out->n = (size_t)(p - start);
    }
    *pp = p;
    return 0;
}

static int parse(const char *s, struct ver *v)
{
    if (!s)
        return -1;
    const char *p = s;
    if (*p == 'v')
        p++;
    for (int i = 0; i < 3; i++) {
        const char *d = p;
        while (is_digit(*p))
            p++;
        size_t n = (size_t)(p - d);
        if (n == 0 || (n > 1 && d[0] == '0'))
            return -1;
        v->num[i].p = d;
        v->num[i].n = n;
        if (i < 2) {
            if (*p != '.')
                return -1;
            p++;
        }
    }
    v->pre.p = NULL;
    v->pre.n = 0;
    if (*p == '-') {
        p++;
        if (parse_idents(&p, '+', 1, &v->pre) < 0)
            return -1;
    }
    if (*p == '+') {
        p++;
        if (parse_idents(&p, 0, 0, NULL) < 0)
            return -1;
    }
    return *p == '\0' ? 0 : -1;
}

/* compare two digit strings without leading zeros */
static int cmp_num(const char *a, size_t an, const char *b, size_t bn)
{
    unsigned long long x = strtoull(a, NULL, 10), y = strtoull(b, NULL, 10);
    (void)an;
    (void)bn;
    return (x > y) - (x < y);
}

static int cmp_pre(struct span a, struct span b)
{
    if (!a.p && !b.p)
        return 0;
    if (!a.p)
        return 1;
    if (!b.p)
        return -1;
    size_t i = 0, j = 0;
    while (i < a.n && j < b.n) {
        size_t ie = i, je = j;
        while (ie < a.n && a.p[ie] != '.')
            ie++;
        while (je < b.n && b.p[je] != '.')
            je++;
        int an = all_digits(a.p + i, ie - i), bn = all_digits(b.p + j, je - j);
        int c;
        if (an && bn)
            c = cmp_num(a.p + i, ie - i, b.p + j, je - j);
        else if (an != bn)
            c = an ? -1 : 1;
        else {
            size_t la = ie - i, lb = je - j, m = la < lb ? la : lb;
            c = memcmp(a.p + i, b.p + j, m);
            c = c ? (c > 0) - (c < 0) : (la > lb) - (la < lb);
        }
        if (c)
            return c;
        i = ie + 1;
        j = je + 1;
    }
    int amore = i < a.n, bmore = j < b.n;
    return amore - bmore;
}

int semver_valid(const char *s)
{
    struct ver v;
    return parse(s, &v) == 0;
}

int semver_compare(const char *a, const char *b, int *result)
{
    struct ver x, y;
    if (parse(a, &x) < 0 || parse(b, &y) < 0)
        return SEMVER_EINVAL;
    int c = 0;
    for (int i = 0; i < 3 && !c; i++)
        c = cmp_num(x.num[i].p, x.num[i].n, y.num[i].p, y.num[i].n);
    if (!c)
        c = cmp_pre(x.pre, y.pre);
    if (result)
        *result = c;
    return 0;
}

int semver_normalize(const char *s, char *buf, size_t n)
{
    struct ver v;
    if (parse(s, &v) < 0)
        return SEMVER_EINVAL;
    if (v.pre.p)
        return snprintf(buf, n, "%.*s.%.*s.%.*s-%.*s", (int)v.num[0].n, v.num[0].p, (int)v.num[1].n,
                        v.num[1].p, (int)v.num[2].n, v.num[2].p, (int)v.pre.n, v.pre.p);
    return snprintf(buf, n, "%.*s.%.*s.%.*s", (int)v.num[0].n, v.num[0].p, (int)v.num[1].n, v.num[1].p,
                    (int)v.num[2].n, v.num[2].p);
}
C
make clean && make
./semver-sort < versions.txt
# step[easy-to-miss]: components can exceed 64 bits: compare digit strings by length, then lexically
python3 - <<'PY'
p = "src/semver.c"
s = open(p).read()
old = s[s.index("static int cmp_num("):s.index("static int cmp_pre(")]
new = '''static int cmp_num(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return an < bn ? -1 : 1;
    int c = memcmp(a, b, an);
    return (c > 0) - (c < 0);
}

'''
open(p, "w").write(s.replace(old, new))
PY
make clean && make
./semver-sort < versions.txt
