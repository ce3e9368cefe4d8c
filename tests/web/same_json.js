// The whole-object comparison the web tests share: the page's result
// against `tplan calc --json`, key by key at every depth, the keys in the
// same order (one writer, text/calc_json.c, makes both). Integers (both
// sides whole numbers) and text, booleans and nulls exactly; reals within
// 1e-9 relative: both sides print a binary64 that reads back exactly, so
// only wasm-vs-glibc libm last-bit differences (exp/log/pow, about 1e-16
// relative) may remain, far below 1e-9, while any modelling difference
// (a changed input or formula) moves a figure by far more.
'use strict';
const REL = 1e-9;

function sameNum(a, b) {
  if (Number.isInteger(a) && Number.isInteger(b)) return a === b;
  return Math.abs(a - b) <= REL * Math.max(Math.abs(a), Math.abs(b));
}

// The differences as "path: cli X, web Y" lines (empty: equal).
function diffs(cli, web, path = '', out = []) {
  const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const show = (v) => JSON.stringify(v === undefined ? null : v).slice(0, 80);
  if (kind(cli) !== kind(web)) {
    out.push(`${path || '/'}: cli ${show(cli)}, web ${show(web)}`);
  } else if (kind(cli) === 'array') {
    if (cli.length !== web.length)
      out.push(`${path}: cli ${cli.length} items, web ${web.length}`);
    else cli.forEach((v, i) => diffs(v, web[i], `${path}[${i}]`, out));
  } else if (kind(cli) === 'object') {
    const ka = Object.keys(cli), kb = Object.keys(web);
    if (ka.join(',') !== kb.join(','))
      out.push(`${path || '/'}: keys differ: cli [${ka.filter((k) => !kb.includes(k))}] ` +
               `web [${kb.filter((k) => !ka.includes(k))}]` +
               (ka.length === kb.length ? ' (order)' : ''));
    for (const k of ka) if (k in web) diffs(cli[k], web[k], `${path}.${k}`, out);
  } else if (kind(cli) === 'number' ? !sameNum(cli, web) : cli !== web) {
    out.push(`${path}: cli ${show(cli)}, web ${show(web)}`);
  }
  return out;
}

// How many values the comparison covered (leaves), for the report line.
function leaves(v) {
  if (v !== null && typeof v === 'object')
    return Object.values(v).reduce((n, x) => n + leaves(x), 0);
  return 1;
}

module.exports = { diffs, leaves, REL };
