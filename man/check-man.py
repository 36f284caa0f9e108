#!/usr/bin/python3
"""Keeps the man pages in step with the code (ctest man_*).

  check-man.py programs BUILD_DIR MAN_DIR
      every option a program's --help shows (its option lines and usage
      lines; dta-query's sub-commands too) has an item in its page
      (a line starting with *-x* or *--long*), and every item is an option
      --help shows.
  check-man.py config CONFIG_C PAGE
      every key of lib/src/config.c (the collector_rules, translator_rules
      and int_rules tables, and the keys finish_structure() and get_count()
      read from a [structure NAME] section) has an item (a line starting
      with *key* =) under its section's heading in dta.conf(5), and the page
      has no key the library does not take.
  check-man.py selftest BUILD_DIR MAN_DIR CONFIG_C
      the checks above fail when an item is removed from a page or an
      unknown one is added (so they can fail).
"""
import os
import re
import subprocess
import sys

# program, path under the build dir, man section
PROGRAMS = [
    ("dta-collector", "collector", 8),
    ("dta-translator", "translator", 8),
    ("dta-gen", "gen", 1),
    ("dta-query", "query", 1),
]
# dta-export is built only with libcurl.
OPTIONAL = [("dta-export", "export", 8)]

OPT = r"--?[A-Za-z0-9][A-Za-z0-9-]*"


def help_texts(build, prog, subdir):
    exe = os.path.join(build, subdir, prog)
    texts = [subprocess.run([exe, "--help"], check=True, capture_output=True,
                            text=True).stdout]
    if prog == "dta-query":
        for c in query_commands(texts[0]):
            texts.append(subprocess.run([exe, c, "--help"], check=True,
                                        capture_output=True,
                                        text=True).stdout)
    return texts


def query_commands(text):
    """The commands dta-query's --help lists under "Commands:"; each has
    a --help of its own."""
    cmds = []
    block = text.split("\nCommands:\n", 1)
    if len(block) == 2:
        for line in block[1].splitlines():
            if not line.strip():
                break
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s{2,}", line)
            if m:
                cmds.append(m.group(1))
    if len(cmds) < 3:
        raise SystemExit("check-man: no Commands: list in dta-query --help")
    return cmds


def help_options(text):
    """Options of a --help text: the leading options of each option line
    (indented, starting with a dash, up to the first two blanks) and every
    option in the usage lines (Usage: and its continuations)."""
    opts = set()
    in_usage = False
    for line in text.splitlines():
        if line.startswith("Usage:"):
            in_usage = True
        elif in_usage and not re.match(r"^ {5,}\S", line):
            in_usage = False
        if in_usage:
            body = line[len("Usage:"):] if line.startswith("Usage:") else line
            opts.update(re.findall(r"(?:^|(?<=[\s\[|(]))(" + OPT + r")", body))
            continue
        m = re.match(r"^\s+(-\S.*?)(?:\s{2,}|$)", line)
        if m:
            opts.update(re.findall(r"(?:^|(?<=[\s,\[]))(" + OPT + r")",
                                   m.group(1)))
    return opts


def page_options(page_text):
    """Options a page documents: the *-x* / *--long* tokens of its item
    lines (lines starting with *-)."""
    opts = set()
    for line in page_text.splitlines():
        if line.startswith("*-"):
            opts.update(re.findall(r"\*(" + OPT + r")\*", line))
    return opts


def compare(what, want, have, want_name, have_name):
    errs = []
    for o in sorted(want - have):
        errs.append("%s: %s is in %s but not in %s" % (what, o, want_name,
                                                       have_name))
    for o in sorted(have - want):
        errs.append("%s: %s is in %s but not in %s" % (what, o, have_name,
                                                       want_name))
    return errs


def check_program(prog, texts, page_text):
    want = set()
    for t in texts:
        want |= help_options(t)
    if len(want) < 2:
        return ["%s: found no options in --help (parser out of date?)" % prog]
    return compare(prog, want, page_options(page_text), "--help",
                   "its man page")


def check_programs(build, mandir, mutate=None):
    errs = []
    for prog, subdir, sec in PROGRAMS + [
            p for p in OPTIONAL
            if os.path.exists(os.path.join(build, p[1], p[0]))]:
        path = os.path.join(mandir, "%s.%d.scd" % (prog, sec))
        with open(path) as f:
            page = f.read()
        if mutate:
            page = mutate(prog, page)
        errs += check_program(prog, help_texts(build, prog, subdir), page)
    return errs


def function_body(src, name):
    m = re.search(r"^static [^\n(]*\b" + name + r"\(.*?^\}", src,
                  re.S | re.M)
    if not m:
        raise SystemExit("check-man: no function %s in config.c" % name)
    return m.group(0)


def config_keys(config_c):
    with open(config_c) as f:
        src = f.read()
    keys = {}
    for table, section in (("collector_rules", "collector"),
                           ("translator_rules", "translator"),
                           ("int_rules", "int"),
                           ("export_rules", "export")):
        m = re.search(r"\b" + table + r"\[\]\s*=\s*\{(.*?)^\};", src,
                      re.S | re.M)
        if not m:
            raise SystemExit("check-man: no table %s in config.c" % table)
        keys[section] = set(re.findall(r'\{\s*"([a-z0-9_]+)"', m.group(1)))
    structure = set()
    for fn in ("get_count", "finish_structure"):
        structure |= set(re.findall(
            r'\b(?:find_kv|get_num|get_count)\(\s*s\s*,\s*"([a-z0-9_]+)"',
            function_body(src, fn)))
    keys["structure"] = structure
    for section, ks in keys.items():
        if len(ks) < 3:
            raise SystemExit("check-man: only %d keys found for [%s] in "
                             "config.c (parser out of date?)"
                             % (len(ks), section))
    return keys


def page_keys(page_text):
    """Keys per section: item lines (*key* at the start of a line) under a
    heading naming the section ([collector], [structure NAME], ...)."""
    keys = {}
    cur = None
    for line in page_text.splitlines():
        h = re.match(r"^#+ .*\[([a-z]+)( NAME)?\]", line)
        if h:
            cur = h.group(1) + (" NAME" if h.group(2) else "")
            if h.group(1) == "structure":
                cur = "structure"
            keys.setdefault(cur, set())
            continue
        if line.startswith("# "):
            cur = None
            continue
        k = re.match(r"^\*([a-z][a-z0-9_]*)\* = ", line)
        if k:
            keys.setdefault(cur or "(no section)", set()).add(k.group(1))
    return keys


def check_config(config_c, page_text):
    want = config_keys(config_c)
    have = page_keys(page_text)
    errs = []
    for section in sorted(set(want) | set(have)):
        what = "dta.conf(5) [%s]" % section
        if section in want:
            errs += compare(what, want[section], have.get(section, set()),
                            "lib/src/config.c", "the page")
        elif have[section]:
            errs += ["%s: keys %s under a section the library does not have"
                     % (what, ", ".join(sorted(have[section])))]
    return errs


def read(path):
    with open(path) as f:
        return f.read()


def selftest(build, mandir, config_c):
    """Each mutation must make its check fail with the expected message."""
    failures = []

    def expect(name, errs, needle):
        if not any(needle in e for e in errs):
            failures.append("%s: not detected (got %r)" % (name, errs))
        else:
            print("ok: %s detected" % name)

    def drop_item(token):
        def mutate(prog, page):
            return "\n".join(l for l in page.splitlines()
                             if not (l.startswith("*") and token in l))
        return mutate

    # An option removed from a page (the first long option of each page).
    for prog, subdir, sec in PROGRAMS:
        page = read(os.path.join(mandir, "%s.%d.scd" % (prog, sec)))
        opts = sorted(o for o in page_options(page) if o.startswith("--")
                      and o != "--help")
        gone = opts[0]
        mutated = drop_item("*%s*" % gone)(prog, page)
        errs = check_program(prog, help_texts(build, prog, subdir), mutated)
        expect("%s without %s" % (prog, gone), errs,
               "%s is in --help but not in its man page" % gone)
        # An option --help does not have, added to the page.
        errs = check_program(prog, help_texts(build, prog, subdir),
                             page + "\n*--no-such-option*\n\tNothing.\n")
        expect("%s with --no-such-option" % prog, errs,
               "--no-such-option is in its man page but not in --help")
    # A config key removed from dta.conf(5), and one the library lacks.
    page = read(os.path.join(mandir, "dta.conf.5.scd"))
    for key in ("rdma_port", "rx_batch", "ttl_init", "separate_trailer"):
        mutated = "\n".join(l for l in page.splitlines()
                            if not l.startswith("*%s*" % key))
        expect("dta.conf(5) without %s" % key, check_config(config_c, mutated),
               "%s is in lib/src/config.c but not in the page" % key)
    mutated = page.replace("\n*port*", "\n*no_such_key* = _N_\n\tNothing.\n"
                           "\n*port*", 1)
    expect("dta.conf(5) with no_such_key", check_config(config_c, mutated),
           "no_such_key is in the page but not in lib/src/config.c")
    # The real pages pass.
    errs = check_programs(build, mandir) + check_config(config_c, page)
    if errs:
        failures.append("the real pages fail: %r" % errs)
    return failures


def main(argv):
    if len(argv) == 4 and argv[1] == "programs":
        errs = check_programs(argv[2], argv[3])
        ok = "every option of --help has an item in the man pages, and no more"
    elif len(argv) == 4 and argv[1] == "config":
        errs = check_config(argv[2], read(argv[3]))
        ok = "dta.conf(5) has every key of lib/src/config.c, and no more"
    elif len(argv) == 5 and argv[1] == "selftest":
        errs = selftest(argv[2], argv[3], argv[4])
        ok = "every mutation was detected"
    else:
        sys.stderr.write(__doc__)
        return 2
    for e in errs:
        print("FAIL: " + e)
    if errs:
        return 1
    print(ok)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
