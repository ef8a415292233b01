"""Deterministic case generator + reference implementation."""
import random, sys

def norm(p):
    absolute = p.startswith("/")
    st = []
    for c in p.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            if st and st[-1] != "..":
                st.pop()
            elif not absolute:
                st.append("..")
        else:
            st.append(c)
    r = "/".join(st)
    return "/" + r if absolute else (r or ".")

def join(b, r):
    return norm(r) if r.startswith("/") else norm(b + "/" + r)

FIXED = ["/", "//", "///a//b///", ".", "./", "..", "../", "/..", "/../..", "a/..", "a/../..",
         "a/../../b", "../..//x/..", "/../a/./b/", "./a/./b/.", "...", "/.../..", ".hidden/../.x",
         "a../b..", "a/b/c/../../..", "a/b/c/../../../..", "/a/b/c/../../../..", "x/./../y/.",
         "usr/local//bin/", "/usr/local/../../../etc", "../a/../b/../../c"]
FIXED_JOIN = [("/srv/app", "../data"), ("/srv/app", "/etc//hosts"), ("rel", "../.."), (".", "."),
              ("/", ".."), ("a/b", "./c/../d/"), ("..", "../x"), ("/a", "b/../../../c")]

def main(out_in, out_exp):
    r = random.Random(12345)
    comps = ["a", "b", "cc", "..", ".", "", "...", ".x", "y.", "d-e", "f_g", ".."]
    cases = [("N", p) for p in FIXED] + [("J", b, x) for b, x in FIXED_JOIN]
    for _ in range(1500):
        k = r.randint(1, 9)
        p = "/".join(r.choice(comps) for _ in range(k))
        if r.random() < 0.4:
            p = "/" + p
        if p == "":
            p = "."
        if r.random() < 0.25:
            b = "/".join(r.choice(comps) for _ in range(r.randint(1, 4))) or "."
            if r.random() < 0.5:
                b = "/" + b
            cases.append(("J", b, p))
        else:
            cases.append(("N", p))
    long = "/" + "/".join(f"dir{i}" for i in range(2500)) + "/" + "../" * 1200 + "tail"
    cases.append(("N", long))
    cases.append(("N", "x/" * 9000 + "../" * 9001 + "y"))
    with open(out_in, "w") as fi, open(out_exp, "w") as fe:
        for c in cases:
            fi.write("\t".join(c) + "\n")
            fe.write((norm(c[1]) if c[0] == "N" else join(c[1], c[2])) + "\n")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
