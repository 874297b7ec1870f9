#!/usr/bin/python3
"""Fills the unfinished plural forms of translations/lathe_en.ts from the source strings.

English is the source language, so lathe_en.ts holds only the tr() strings with %n
("%n image(s)"), and their two forms follow from the source: "(s)" and "(es)" are dropped
for one ("1 image", "1 class") and kept for more ("2 images", "2 classes"). A source whose
other words agree with the number ("are", "were", "them", ...) is left unfinished for a
person to write; forms already there are never changed. Run by scripts/update-translations.sh.
"""
import html
import re
import sys

AGREEING = re.compile(r"\b(are|were|is|was|has|have|them|they|these|those|it|its)\b")
MESSAGE = re.compile(r'(<message numerus="yes">\s*<source>)((?:(?!</source>).)*)(</source>(?:(?!</message>).)*?)'
                     r'<translation type="unfinished">\s*<numerusform></numerusform>\s*'
                     r'<numerusform></numerusform>\s*</translation>', re.S)


def forms(source):
    """(singular, plural) for a source string, or None when a person must write them."""
    if AGREEING.search(source):
        return None
    return re.sub(r"\((e?s)\)", "", source), re.sub(r"\((e?s)\)", r"\1", source)


def fill(match):
    source = html.unescape(match.group(2))
    made = forms(source)
    if made is None:
        return match.group(0)
    one, many = (html.escape(f, quote=False) for f in made)
    return (match.group(1) + match.group(2) + match.group(3) +
            "<translation>\n            <numerusform>" + one + "</numerusform>\n"
            "            <numerusform>" + many + "</numerusform>\n        </translation>")


def main(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    filled = MESSAGE.sub(fill, text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(filled)
    left = filled.count('type="unfinished"')
    if left:
        print(f"{path}: {left} plural form(s) left for a person to write (the number changes other words)")


if __name__ == "__main__":
    main(sys.argv[1])
