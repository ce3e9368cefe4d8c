// Loads a page in headless Chromium and writes its DOM once the page is
// ready, waiting in real time. Chromium's --virtual-time-budget does not
// wait for the page's WebAssembly to compile, so on a loaded machine a
// --dump-dom could come before any result; this waits for READY instead.
//
// Usage: node headless.js URL READY OUT [SECONDS] [chromium flags...]
//   READY    a JavaScript expression, true once the page is ready
//   OUT      the file the DOM (document.documentElement.outerHTML) goes to
//   SECONDS  the most to wait, in real time (default 90)
// Exits 1 with a one-line message, the DOM still written, when READY is
// not true within SECONDS. Drives Chromium over --remote-debugging-pipe
// (the DevTools protocol: JSON messages ending in a NUL byte, commands
// on the browser's fd 3, replies on its fd 4), so it needs no port and
// no module beyond Node's own.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');

const [url, ready, out, secs, ...flags] = process.argv.slice(2);
if (!url || !ready || !out) {
  console.error('usage: node headless.js URL READY OUT [SECONDS] [flags...]');
  process.exit(2);
}
const limit = Date.now() + 1000 * Number(secs || 90);

const chrome = spawn('chromium', ['--headless', '--no-sandbox', '--disable-gpu',
  '--remote-debugging-pipe', ...flags, url],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toChrome = chrome.stdio[3], fromChrome = chrome.stdio[4];

let next = 1, buf = '';
const waiting = new Map();
fromChrome.on('data', (d) => {
  buf += d.toString('utf8');
  let end;
  while ((end = buf.indexOf('\0')) >= 0) {
    const m = JSON.parse(buf.slice(0, end));
    buf = buf.slice(end + 1);
    const w = m.id !== undefined && waiting.get(m.id);
    if (!w) continue;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error.message));
    else w.resolve(m.result);
  }
});
function send(method, params, sessionId) {
  const id = next++;
  toChrome.write(JSON.stringify({ id, method, params: params || {}, sessionId }) + '\0');
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function done(code, msg) {
  if (msg) console.error(msg);
  chrome.kill('SIGKILL');
  process.exit(code);
}
chrome.on('exit', (c) => done(1, `FAIL: chromium exited (${c}) before ${url} was ready`));
setTimeout(() => done(1, `FAIL: no answer from chromium for ${url}`),
  Math.max(0, limit - Date.now()) + 30000).unref();

(async () => {
  let page;
  while (!page) {
    if (Date.now() > limit) done(1, `FAIL: chromium opened no page for ${url}`);
    const { targetInfos } = await send('Target.getTargets');
    page = targetInfos.find((t) => t.type === 'page');
    if (!page) await sleep(100);
  }
  const { sessionId } = await send('Target.attachToTarget',
    { targetId: page.targetId, flatten: true });
  const expr = `(function () { try { if (!(${ready})) return null; } catch (e) { return null; }
    return document.documentElement.outerHTML; })()`;
  for (;;) {
    const timedOut = Date.now() > limit;
    const { result } = await send('Runtime.evaluate',
      { expression: timedOut ? 'document.documentElement.outerHTML' : expr, returnByValue: true },
      sessionId);
    if (result.type === 'string') {
      fs.writeFileSync(out, result.value);
      if (timedOut)
        done(1, `FAIL: ${url} not ready (${ready}) after ${secs || 90} s`);
      done(0);
    }
    await sleep(200);
  }
})().catch((e) => done(1, `FAIL: ${url}: ${e.message}`));
