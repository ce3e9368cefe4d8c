// Usage: node page_compare.js gen N SEED BIN   -> N valid queries (stdout)
//        node page_compare.js check OUT.json BIN -> compare with calc --json
// "Valid": tplan calc accepts it; random draws it rejects are redrawn.
// The whole object calc --json prints, key by key at every depth
// (same_json.js: integers and text exactly, reals within 1e-9 relative,
// the tolerance's reason there).
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const [mode, arg, a2, a3] = process.argv.slice(2);
const { diffs } = require('./same_json.js');

function cli(bin, q) {
  const args = ['calc', '--json'];
  for (const [k, v] of new URLSearchParams(q)) args.push(`--${k}=${v}`);
  try {
    return { ok: JSON.parse(execFileSync(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })) };
  } catch (e) {
    return { err: String(e.stderr).trim() };
  }
}

if (mode === 'gen') {
  let s = Number(a2) >>> 0;
  const rnd = (n) => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s % n; };
  const pick = (a) => a[rnd(a.length)];
  const out = [];
  for (let tries = 0; out.length < Number(arg) && tries < 5000; tries++) {
    const p = { model: pick(['gpt2', 'gpt2-xl', 'llama3-8b', 'llama3-70b', 'mixtral-8x7b']),
                gpu: pick(['a100-40g', 'a100-80g', 'h100-sxm']),
                gpus: pick([1, 2, 4, 8, 16, 64]) };
    if (rnd(2)) p.precision = pick(['fp32', 'amp-bf16', 'mixed-bf16', 'bf16', 'fp8']);
    if (rnd(2)) p.seq = pick([512, 1024, 2048, 4096, 8192]);
    if (rnd(2)) p['micro-batch'] = pick([1, 2, 4, 8]);
    if (rnd(3) === 0) p['global-batch'] = pick([64, 256, 1024]);
    if (rnd(3) === 0) p.tp = pick([1, 2, 4, 8]);
    if (rnd(4) === 0) p.pp = pick([1, 2, 4]);
    if (rnd(2)) p.zero = pick([0, 1, 2, 3]);
    if (rnd(2)) p.recompute = pick(['none', 'selective', 'full']);
    if (rnd(4) === 0) p['lora-rank'] = pick([8, 16, 64]);
    if (rnd(5) === 0) p['offload-optimizer'] = 'cpu';
    if (rnd(3) === 0) p.tokens = pick(['1e9', '1e11']);
    if (rnd(4) === 0) p.price = pick([1.5, 3.9]);
    const q = new URLSearchParams(p).toString();
    if (cli(a3, q).ok) out.push(q);
  }
  console.log(out.join('\n'));
  process.exit(out.length === Number(arg) ? 0 : 1);
}

const rows = JSON.parse(fs.readFileSync(arg, 'utf8'));
const bin = a2;
let bad = 0;
for (const row of rows) {
  if (row.lists) {
    // the page's lists are the engine's catalogs, in the catalogs' order
    const names = (what) => JSON.parse(execFileSync(bin, [what, '--json'])).map((m) => m.name).join(',');
    for (const k of ['models', 'gpus'])
      if (row.lists[k].join(',') !== names(k)) {
        console.log(`FAIL the page's ${k} list: ${row.lists[k].join(',')}, tplan ${k}: ${names(k)}`);
        bad++;
      }
    // the grid over the chosen axes (gpus: 7 values, tp: 4), in the URL
    const u = new URLSearchParams(row.url);
    if (u.get('grid-x') !== 'gpus' || u.get('grid-y') !== 'tp' || row.grid.rows !== 5 ||
        row.grid.cells !== 28 || row.grid.title !== 'Fits? tensor parallel \u00d7 GPU count') {
      console.log(`FAIL grid axes: URL ${row.url}, grid ${JSON.stringify(row.grid)}`);
      bad++;
    }
    continue;
  }
  if (row.config !== undefined) {
    // a pasted config: its error, one line, next to the textarea
    const want = row.config.includes('olmoe')
      ? 'model_config: config.json: model_type olmoe is a mixture of experts'
      : 'model_config: config.json: not valid JSON (';
    const r = row.result;
    if (!r.error || row.shown !== r.error || !row.shown.startsWith(want) ||
        /\n/.test(row.shown) || row.invalid !== 'true') {
      console.log(`FAIL pasted ${row.config}: shown "${row.shown}", result ${JSON.stringify(r)}`);
      bad++;
    }
    continue;
  }
  const c = cli(bin, row.q);
  const r = row.result;
  if (c.err !== undefined) {
    // the page must show calc's message under the field it names
    if (!r.error || !c.err.includes(r.error) || row.shown !== r.error) {
      console.log(`FAIL ${row.q}: cli "${c.err}", page "${r.error}", shown "${row.shown}"`);
      bad++;
    }
    continue;
  }
  if (r.error) { console.log(`FAIL ${row.q}: page error ${r.error}`); bad++; continue; }
  if (!r.fields || !r.model) { console.log(`FAIL ${row.q}: the page shows no whole result`); bad++; continue; }
  const norm = (q) => [...new URLSearchParams(q)].map((e) => e.join('=')).sort().join('&');
  if (norm(row.url) !== norm(row.q)) { console.log(`FAIL ${row.q}: URL written ${row.url}`); bad++; }
  const d = diffs(c.ok, r);
  if (d.length) { console.log(`FAIL ${row.q}: ${d.slice(0, 3).join('; ')}`); bad++; }
}
console.log(`${rows.length - bad}/${rows.length} page results equal calc --json`);
process.exit(bad ? 1 : 0);
