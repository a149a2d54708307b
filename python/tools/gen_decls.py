#!/usr/bin/env python3
"""python/tools/gen_decls.py: writes python/pdesolve/_decls.py, the ctypes prototypes of every PDS_EXTERN function
and the layout of every public struct of include/pdesolve.h, from the header itself.

    python3 python/tools/gen_decls.py            # rewrite _decls.py
    python3 python/tools/gen_decls.py --check    # exit 1 if _decls.py differs from what the header gives

The package calls the C library through these prototypes only, so a change of the header is one run of this script
(the test test_decls_current fails until it is run). An unknown type in the header is an error here, not a guess."""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = [os.path.join(ROOT, "include", "pdesolve", "pds_types.h"), os.path.join(ROOT, "include", "pdesolve.h")]
OUT = os.path.join(ROOT, "python", "pdesolve", "_decls.py")

SCALARS = {"pds_int": "c_int32", "pds_size": "c_int64", "pds_real": "c_double", "double": "c_double",
           "float": "c_float", "int": "c_int", "unsigned": "c_uint", "long": "c_long", "size_t": "c_size_t",
           "uint64_t": "c_uint64", "int64_t": "c_int64", "int32_t": "c_int32", "char": "c_char",
           "unsigned char": "c_ubyte"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def parse(text):
    enums = set(re.findall(r"typedef\s+enum\s*\{[^}]*\}\s*(\w+)\s*;", text, flags=re.S))
    handles = set(re.findall(r"typedef\s+struct\s+\w+\s*\*\s*(\w+)\s*;", text))
    fnptrs = set(re.findall(r"typedef\s+[\w\s\*]+\(\s*\*\s*(\w+)\s*\)\s*\(", text))
    structs = []
    for body, name in re.findall(r"typedef\s+struct\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        fields = []
        for decl in body.split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            m = re.match(r"((?:const\s+)?[\w ]*?\w)\s*((?:\*\s*)*)(\w+\s*(?:\[\d+\])?(?:\s*,\s*\**\s*\w+\s*(?:\[\d+\])?)*)$",
                         decl)
            if not m:
                raise SystemExit("gen_decls: cannot read field '%s' of %s" % (decl, name))
            base, stars, names = m.group(1), m.group(2).replace(" ", ""), m.group(3)
            for item in names.split(","):
                im = re.match(r"\s*(\**)\s*(\w+)\s*(?:\[(\d+)\])?\s*$", item)
                ptr = stars + im.group(1)
                fields.append((im.group(2), base, ptr, im.group(3)))
        structs.append((name, fields))
    funcs = []
    for ret, name, args in re.findall(r"PDS_EXTERN\s+([\w\s\*]+?)\s*\b(pds_\w+)\s*\(([^;]*?)\)\s*;", text, flags=re.S):
        params = [] if args.strip() in ("", "void") else [" ".join(a.split()) for a in args.split(",")]
        funcs.append((name, " ".join(ret.split()), params))
    return enums, handles, fnptrs, structs, funcs


def ctype(typ, ptr, enums, handles, fnptrs, structnames, where):
    typ = typ.replace("const ", "").strip()
    if ptr:
        if typ == "char" and ptr == "*":
            return "c_char_p"
        return "c_void_p"
    if typ in SCALARS:
        return SCALARS[typ]
    if typ in enums:
        return "c_int"
    if typ in handles or typ in fnptrs:
        return "c_void_p"
    if typ in structnames:
        return typ
    if typ == "void":
        return "None"
    raise SystemExit("gen_decls: unknown type '%s' in %s: add it to SCALARS" % (typ, where))


def split_param(p):
    m = re.match(r"(.*?)(\**)\s*(\w+)\s*(\[\d*\])?$", p.replace("* ", "*").replace(" *", " *"))
    if not m:
        raise SystemExit("gen_decls: cannot read parameter '%s'" % p)
    base, stars, _, arr = m.groups()
    stars = "*" * base.count("*") + stars + ("*" if arr else "")  # 'const char *const *names': two
    base = re.sub(r"\bconst\b", "", base.replace("*", "")).strip()
    return base, stars


def generate():
    text = strip_comments("".join(open(h).read() for h in HEADERS))
    enums, handles, fnptrs, structs, funcs = parse(text)
    structnames = {s for s, _ in structs}
    out = ['"""pdesolve/_decls.py: written by python/tools/gen_decls.py from include/pdesolve.h; do not edit.',
           '', 'FUNCTIONS: name -> (result type, argument types) of every PDS_EXTERN function; one ctypes.Structure',
           'per public struct, with the header\'s field names."""',
           "from ctypes import (Structure, c_char, c_char_p, c_double, c_float, c_int, c_int32, c_int64, c_long,",
           "                    c_size_t, c_ubyte, c_uint, c_uint64, c_void_p)", "",
           "__all__ = [\"FUNCTIONS\", %s]" % ", ".join('"%s"' % s for s in sorted(structnames)), ""]
    for name, fields in structs:
        out.append("")
        out.append("class %s(Structure):" % name)
        out.append("    _fields_ = [")
        for fname, base, ptr, arr in fields:
            t = ctype(base, ptr, enums, handles, fnptrs, structnames, "%s.%s" % (name, fname))
            if arr:
                t = "%s * %s" % (t, arr)
            out.append("        (\"%s\", %s)," % (fname, t))
        out.append("    ]")
    out += ["", "", "FUNCTIONS = {"]
    for name, ret, params in funcs:
        rbase, rstars = split_param(ret + " r") if ret != "void" else ("void", "")
        rt = ctype(rbase, rstars, enums, handles, fnptrs, structnames, name)
        ats = []
        for p in params:
            base, stars = split_param(p)
            ats.append(ctype(base, stars, enums, handles, fnptrs, structnames, "%s(%s)" % (name, p)))
        line = "    \"%s\": (%s, [%s])," % (name, rt, ", ".join(ats))
        if len(line) > 118:
            line = "    \"%s\": (%s, [\n        %s])," % (name, rt, ", ".join(ats))
        out.append(line)
    out += ["}", ""]
    return "\n".join(out)


def main():
    text = generate()
    if "--check" in sys.argv[1:]:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            print("gen_decls: %s is out of date with include/pdesolve.h; run python3 python/tools/gen_decls.py" % OUT)
            return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
