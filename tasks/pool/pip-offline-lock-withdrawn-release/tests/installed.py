import importlib.metadata as md, re
skip = {"pip", "setuptools", "wheel", "distribute", "pkg-resources"}
out = set()
for d in md.distributions():
    n = re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower()
    if n not in skip:
        out.add(f"{n}=={d.version}")
print("\n".join(sorted(out)))
