// Compare the wasm's plan fields with `tplan calc --json`'s "fields" for
// each query given on stdin (one a line). Usage:
//   node compare.js TPLAN_WEB_JS TPLAN_BIN < queries
// Integers and text exactly; reals within 1e-9 relative: both sides print
// a binary64 that reads back exactly, so only wasm vs x86-64 libm last-bit
// differences (exp/log/pow) may remain, far below 1e-9.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const [jsPath, bin] = process.argv.slice(2);
const factory = require(require('path').resolve(jsPath));
const REL = 1e-9;

function same(a, b) {
  // integer fields print without a point and must match exactly; a real
  // that happens to be whole compares as a real (1e-9 relative)
  if (typeof a === 'number' && typeof b === 'number' && !Number.isInteger(a))
    return Math.abs(a - b) <= REL * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

factory().then((M) => {
  const calc = M.cwrap('tplan_web_calc', 'number', ['string']);
  const free = M.cwrap('tplan_web_free', null, ['number']);
  const lines = fs.readFileSync(0, 'utf8').split('\n').filter((l) => l.trim());
  let bad = 0;
  for (const q of lines) {
    const p = calc(q);
    const web = JSON.parse(M.UTF8ToString(p));
    free(p);
    const args = ['calc', '--json'];
    for (const kv of q.split('&')) {
      const i = kv.indexOf('=');
      args.push('--' + decodeURIComponent(kv.slice(0, i)) + '=' +
                decodeURIComponent(kv.slice(i + 1)));
    }
    let cli;
    try {
      cli = JSON.parse(execFileSync(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (e) {
      const msg = String(e.stderr).trim();
      if (!web.error || !msg.includes(web.error)) {
        console.log(`FAIL ${q}: cli error "${msg}", web ${JSON.stringify(web).slice(0, 200)}`);
        bad++;
      } else {
        console.log(`ok   ${q}: same error: ${web.error}`);
      }
      continue;
    }
    if (web.error) {
      console.log(`FAIL ${q}: web error "${web.error}", cli ok`);
      bad++;
      continue;
    }
    const keys = new Set([...Object.keys(cli.fields), ...Object.keys(web.fields)]);
    let diff = 0;
    for (const k of keys) {
      if (!same(cli.fields[k], web.fields[k])) {
        if (diff < 5)
          console.log(`FAIL ${q}: ${k}: cli ${cli.fields[k]} web ${web.fields[k]}`);
        diff++;
      }
    }
    if (diff) bad++;
    else console.log(`ok   ${q}: ${keys.size} fields equal`);
  }
  console.log(`${lines.length - bad}/${lines.length} configurations equal`);
  process.exit(bad ? 1 : 0);
});
