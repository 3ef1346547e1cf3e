#!/bin/sh
# Regenerates docs/img/report.png, report-zh.png and redline.png from reviews of the bundled
# supply agreement and Chinese construction contract (deterministic, no LLM). Needs Debian's
# chromium and LibreOffice:
#   apt-get install chromium libreoffice-writer-nogui fonts-noto-cjk
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
STATE_DIR="$work/state" .venv/bin/contract-review review examples/generic/supply_agreement_en.txt \
  --party Buyer --approve all --author "A. Lawyer" --out "$work/out" 2>/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,1400 \
  --screenshot=docs/img/report.png "file://$work/out/report.html" 2>/dev/null
STATE_DIR="$work/state" .venv/bin/contract-review review examples/cn/construction_contract_zh.txt \
  --party 乙方 --approve all --out "$work/zh" 2>/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1000,1400 \
  --screenshot=docs/img/report-zh.png "file://$work/zh/report.html" 2>/dev/null
# Comments exported as PDF annotations (LibreOffice 7.4 cannot print them in the margin).
soffice --headless --convert-to 'pdf:writer_pdf_Export:{"ExportNotes":{"type":"boolean","value":"true"}}' \
  --outdir "$work" "$work/out/redline.docx" >/dev/null 2>&1
.venv/bin/python - "$work/redline.pdf" docs/img/redline.png <<'PY'
import sys

import pypdfium2 as pdfium

pdf = pdfium.PdfDocument(sys.argv[1])
# the first page with a tracked change on it
page = next(p for p in pdf if "Thereafter" in p.get_textpage().get_text_range())
page.render(scale=1.4, draw_annots=True).to_pil().save(sys.argv[2])
PY
rm -rf "$work"
echo "docs/img/report.png docs/img/report-zh.png docs/img/redline.png written"
