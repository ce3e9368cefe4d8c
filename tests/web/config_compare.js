// A pasted config.json in the wasm against `tplan calc --model-config
// FILE --json`: for each FILE given (the file's text parsed by JSON.parse,
// as the page does, and mapped by the same engine/hf_map.c), the whole
// object equal (same_json.js), or for a file calc refuses the same
// message. Usage: node config_compare.js TPLAN_WEB_JS TPLAN_BIN QUERY FILE...
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { diffs, leaves } = require('./same_json.js');
const [jsPath, bin, query, ...files] = process.argv.slice(2);
const factory = require(path.resolve(jsPath));

// the root value's tplan_hv_kind (engine/hf_map.h), as the page gives it
function kind(v) {
  return v === null ? 1 : v === false ? 2 : v === true ? 3
    : typeof v === 'number' ? (Number.isSafeInteger(v) ? 4 : 5)
    : typeof v === 'string' ? 6 : Array.isArray(v) ? 7 : 8;
}

factory().then((M) => {
  const calc = M.cwrap('tplan_web_calc_config', 'number', ['string', 'string', 'number']);
  const free = M.cwrap('tplan_web_free', null, ['number']);
  let bad = 0;
  for (const file of files) {
    const root = JSON.parse(fs.readFileSync(file, 'utf8'));
    M.tplanObjs = [root];
    const p = calc(query, file, kind(root));
    const web = JSON.parse(M.UTF8ToString(p));
    free(p);
    const args = ['calc', '--json', '--model-config', file];
    for (const [k, v] of new URLSearchParams(query)) args.push(`--${k}=${v}`);
    let cli;
    try {
      cli = JSON.parse(execFileSync(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    } catch (e) {
      const msg = String(e.stderr).trim();
      if (web.error && msg === `tplan: ${web.error}`) {
        console.log(`ok   ${file}: same error: ${web.error}`);
      } else {
        console.log(`FAIL ${file}: cli "${msg}", web ${JSON.stringify(web).slice(0, 200)}`);
        bad++;
      }
      continue;
    }
    if (web.error) { console.log(`FAIL ${file}: web error "${web.error}", cli ok`); bad++; continue; }
    const d = diffs(cli, web);
    for (const line of d.slice(0, 5)) console.log(`FAIL ${file}: ${line}`);
    if (d.length) bad++;
    else console.log(`ok   ${file}: the whole object equal (${leaves(cli)} values, model ${web.model.name})`);
  }
  console.log(`${files.length - bad}/${files.length} configs equal calc --model-config`);
  process.exit(bad ? 1 : 0);
});
