// Judges what tests/web/layout_check.js posted at 390 and 1400 px (from
// the DOM tests/test_web_page.sh dumped): no problem found in the page;
// at 390 px the page no wider than its viewport and the form above the
// results; at 1400 px the form and the results side by side.
'use strict';
const s = require('fs').readFileSync(process.argv[2], 'utf8');
const m = s.match(/<pre id="tplan-layout-out">([^<]*)<\/pre>/);
if (!m) { console.log('FAIL: the pages produced no layout facts (did they load?)'); process.exit(1); }
const unesc = (t) => t.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const all = JSON.parse(unesc(m[1]));
let nbad = 0;
for (const w of [390, 1400]) {
  const f = all[w];
  if (!f) { console.log(`FAIL at ${w} px: no facts`); nbad++; continue; }
  const bad = f.problems.slice();
  if (f.scrollWidth > w) bad.push(`page ${f.scrollWidth} px wide in a ${w} px viewport (horizontal scrolling)`);
  const side = f.form.right <= f.results.left && f.form.top < f.results.bottom &&
               f.results.top < f.form.bottom;
  if (w >= 1400 && !side) bad.push(`form and results not side by side: ${JSON.stringify(f)}`);
  if (w <= 390 && (side || f.form.bottom > f.results.top))
    bad.push(`form not above the results on a phone: ${JSON.stringify(f)}`);
  bad.forEach((b) => console.log(`FAIL at ${w} px: ${b}`));
  nbad += bad.length;
  if (!bad.length)
    console.log(`ok   at ${w} px: every input labelled, keyboard-reachable, its error box beside it; ` +
                `typing changes the result; page ${f.scrollWidth} px wide; ${side ? 'side by side' : 'stacked'}`);
}
process.exit(nbad ? 1 : 0);
