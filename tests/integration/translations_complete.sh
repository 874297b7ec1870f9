#!/usr/bin/env bash
# Fails when a tr() string in the sources is missing from lathe_zh_CN.ts (a %n string from
# lathe_en.ts), is left unfinished, or when the file keeps obsolete entries. Runs lupdate on a copy.
set -euo pipefail
LUPDATE="$1"
SRC="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ts in "$SRC"/translations/*.ts; do
  cp "$ts" "$TMP/"
  copy="$TMP/$(basename "$ts")"
  only=() # lathe_en.ts: English is the source language, only its plural forms are translated
  [ "$(basename "$ts")" = lathe_en.ts ] && only=(-pluralonly -source-language en -target-language en)
  "$LUPDATE" -silent -I "$SRC/core" -I "$SRC/widgets" -locations none -no-obsolete "${only[@]}" "$SRC/app" "$SRC/core/workspace" "$SRC/widgets" -ts "$copy"
  unfinished=$(grep -c 'type="unfinished"' "$copy" || true)
  vanished=$(grep -cE 'type="(vanished|obsolete)"' "$copy" || true)
  if [ "$unfinished" -ne 0 ] || [ "$vanished" -ne 0 ] || ! cmp -s "$ts" "$copy"; then
    echo "FAIL: $(basename "$ts"): $unfinished unfinished, $vanished obsolete; differs from lupdate's view:" >&2
    diff "$ts" "$copy" | head -40 >&2 || true
    echo "Run scripts/update-translations.sh and translate what it marks unfinished." >&2
    exit 1
  fi
  echo "$(basename "$ts"): $(grep -c '<message' "$ts") messages, all translated"
done

# Every translation is text, never markup (an earlier plural filler once copied whole escaped
# messages into a form), and every plural form of a %n source says the number.
"${LATHE_PYTHON:-python3}" - "$SRC/translations" <<'PY'
import pathlib, sys, xml.etree.ElementTree as ET
bad = []
for ts in sorted(pathlib.Path(sys.argv[1]).glob("*.ts")):
    for message in ET.parse(ts).getroot().iter("message"):
        source = message.findtext("source") or ""
        forms = message.findall("translation/numerusform") or [message.find("translation")]
        for form in forms:
            text = (form.text or "") if form is not None else ""
            if "<source>" in text or "</numerusform>" in text or "<message" in text:
                bad.append(f"{ts.name}: {source!r}: a form holds XML markup")
            elif message.get("numerus") == "yes" and "%n" in source and "%n" not in text and "%Ln" not in text:
                bad.append(f"{ts.name}: {source!r}: a plural form without %n: {text!r}")
for line in bad:
    print("FAIL:", line, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# The English plural filler fills an unfinished plural after a finished one, and only that one.
sample="$TMP/plurals.ts"
cat > "$sample" <<'TS'
<TS><context><name>x</name>
    <message numerus="yes">
        <source>%n done(s)</source>
        <translation>
            <numerusform>%n done</numerusform>
            <numerusform>%n dones</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context></TS>
TS
"${LATHE_PYTHON:-python3}" "$SRC/scripts/fill-english-plurals.py" "$sample"
grep -q '<numerusform>%n file</numerusform>' "$sample" && grep -q '<numerusform>%n files</numerusform>' "$sample" \
  && grep -q '<numerusform>%n dones</numerusform>' "$sample" && [ "$(grep -c '<numerusform>' "$sample")" -eq 4 ] \
  || { echo "FAIL: fill-english-plurals.py filled the sample wrongly:" >&2; cat "$sample" >&2; exit 1; }
echo "plural forms: text with %n; the filler fills only the unfinished"
