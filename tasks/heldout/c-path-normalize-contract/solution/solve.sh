#!/bin/bash
set -e
cd /app/pathnorm
# step: implement path_normalize/path_join with heap-allocated component stacks and snprintf-style output
cat > src/pathnorm.c <<'C'
#include <stdlib.h>
#include <string.h>
#include "pathnorm.h"

struct comp { const char *p; size_t n; };

static int is_dotdot(struct comp c) { return c.n == 2 && c.p[0] == '.' && c.p[1] == '.'; }

/* append src[0..n) at logical position pos, honouring outsz; returns new pos */
static size_t emit(char *out, size_t outsz, size_t pos, const char *src, size_t n)
{
    if (out && outsz > 0 && pos < outsz - 1) {
        size_t room = outsz - 1 - pos;
        memcpy(out + pos, src, n < room ? n : room);
    }
    return pos + n;
}

long path_normalize(const char *in, char *out, size_t outsz)
{
    if (!in || !*in)
        return -1;
    size_t len = strlen(in), ncomp = 0;
    struct comp *st = malloc((len / 2 + 1) * sizeof *st);
    if (!st)
        return -1;
    int absolute = in[0] == '/';
    const char *p = in;
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        struct comp c = {s, (size_t)(p - s)};
        if (c.n == 0 || (c.n == 1 && c.p[0] == '.'))
            continue;
        if (is_dotdot(c)) {
            if (ncomp > 0 && !is_dotdot(st[ncomp - 1]))
                ncomp--;
            continue; /* dropped at the root */
        }
        st[ncomp++] = c;
    }
    size_t pos = 0;
    if (absolute)
        pos = emit(out, outsz, pos, "/", 1);
    for (size_t i = 0; i < ncomp; i++) {
        if (i > 0)
            pos = emit(out, outsz, pos, "/", 1);
        pos = emit(out, outsz, pos, st[i].p, st[i].n);
    }
    if (!absolute && ncomp == 0)
        pos = emit(out, outsz, pos, ".", 1);
    free(st);
    if (out && outsz > 0)
        out[pos < outsz - 1 ? pos : outsz - 1] = '\0';
    return (long)pos;
}

long path_join(const char *base, const char *rel, char *out, size_t outsz)
{
    if (!base || !rel || !*base || !*rel)
        return -1;
    if (rel[0] == '/')
        return path_normalize(rel, out, outsz);
    size_t bl = strlen(base), rl = strlen(rel);
    char *tmp = malloc(bl + rl + 2);
    if (!tmp)
        return -1;
    memcpy(tmp, base, bl);
    tmp[bl] = '/';
    memcpy(tmp + bl + 1, rel, rl + 1);
    long r = path_normalize(tmp, out, outsz);
    free(tmp);
    return r;
}
C
make clean && make
./pnorm /a/../b//c/ a/../../b
# step[easy-to-miss]: relative paths keep unresolvable leading '..' components (only the root swallows them)
python3 - <<'PY'
p = "src/pathnorm.c"
s = open(p).read()
old = """            if (ncomp > 0 && !is_dotdot(st[ncomp - 1]))
                ncomp--;
            continue; /* dropped at the root */
"""
new = """            if (ncomp > 0 && !is_dotdot(st[ncomp - 1]))
                ncomp--;
            else if (!absolute)
                st[ncomp++] = c; /* unresolvable in a relative path: keep */
            continue;          /* at the root of an absolute path: drop */
"""
assert old in s
open(p, "w").write(s.replace(old, new))
PY
make clean && make
./pnorm /a/../b//c/ a/../../b ../..//x/..
