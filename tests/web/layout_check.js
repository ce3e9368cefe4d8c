// Appended to a copy of tplan.html by tests/test_web_page.sh, opened in
// an iframe of the width tested (headless Chromium's windows are at least
// 500 px wide; an iframe is its own viewport, media queries included):
// accessibility and layout facts as JSON, posted to the parent page,
// which writes them into <pre id="tplan-layout-out">:
// every input, select and textarea labelled, reachable by keyboard and
// its error box beside it; the form operated by typing (focus, key
// events, input events) changes the result; the page's width against
// the window's, and where the form and the results sit.
(function () {
  'use strict';
  function run() {
    if (!window.tplanCalc) { setTimeout(run, 20); return; }
    var form = document.getElementById('f'), problems = [];
    form.querySelectorAll('input, select, textarea').forEach(function (el) {
      var id = el.id || el.name, cs = getComputedStyle(el);
      if (!el.labels || !el.labels.length || !el.labels[0].textContent.trim())
        problems.push(id + ': no label');
      if (el.tabIndex < 0 || el.disabled || cs.display === 'none' ||
          cs.visibility === 'hidden' || el.getClientRects().length === 0)
        problems.push(id + ': not reachable by keyboard');
      // an input the engine can name has its error box beside it
      var field = el.name || (el.id === 'in-config' ? 'model_config' : null);
      if (field) {
        var box = document.getElementById('err-' + field);
        if (!box || box.parentNode !== el.parentNode ||
            el.getAttribute('aria-describedby') !== 'err-' + field)
          problems.push(id + ': no error box beside it');
      }
    });
    // operated by typing: focus the GPU count, type "16" key by key
    var g = document.getElementById('in-gpus');
    var before = JSON.parse(document.getElementById('tplan-result').textContent);
    g.focus();
    if (document.activeElement !== g) problems.push('in-gpus: takes no focus');
    g.value = '';
    '16'.split('').forEach(function (ch) {
      g.dispatchEvent(new KeyboardEvent('keydown', { key: ch, bubbles: true }));
      g.value += ch;
      g.dispatchEvent(new InputEvent('input', { data: ch, inputType: 'insertText', bubbles: true }));
      g.dispatchEvent(new KeyboardEvent('keyup', { key: ch, bubbles: true }));
    });
    var after = JSON.parse(document.getElementById('tplan-result').textContent);
    if (!after.parallel || after.parallel.gpus !== 16 ||
        !before.parallel || before.parallel.gpus === 16)
      problems.push('typing 16 into GPU count: gpus ' +
                    (before.parallel && before.parallel.gpus) + ' -> ' +
                    (after.parallel && after.parallel.gpus));
    var r = function (el) { var b = el.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom }; };
    window.parent.postMessage(JSON.stringify({
      width: window.innerWidth, scrollWidth: document.documentElement.scrollWidth,
      form: r(form), results: r(document.querySelector('main section')), problems: problems }), '*');
  }
  run();
})();
