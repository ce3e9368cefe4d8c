// Compare the wasm's result with the whole object `tplan calc --json`
// prints, for each query given on stdin (one a line). Usage:
//   node compare.js TPLAN_WEB_JS TPLAN_BIN < queries
// Key by key at every depth (same_json.js: integers and text exactly,
// reals within 1e-9 relative, the tolerance's reason there).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const [jsPath, bin] = process.argv.slice(2);
const factory = require(require('path').resolve(jsPath));
const { diffs, leaves } = require('./same_json.js');

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
    const d = diffs(cli, web);
    for (const line of d.slice(0, 5)) console.log(`FAIL ${q}: ${line}`);
    if (d.length) bad++;
    else console.log(`ok   ${q}: the whole object equal (${leaves(cli)} values)`);
  }
  console.log(`${lines.length - bad}/${lines.length} configurations equal`);
  process.exit(bad ? 1 : 0);
});
