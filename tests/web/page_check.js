// Appended to a copy of tplan.html by tests/test_web_page.sh: drives the
// page's own form for each query in window.TPLAN_QUERIES (set inputs,
// fire 'input', read #tplan-result and the error under the named field)
// and writes the outcomes as JSON into <pre id="tplan-test-out">.
(function () {
  'use strict';
  function run() {
    if (!window.tplanCalc) { setTimeout(run, 20); return; }
    var form = document.getElementById('f'), out = [];
    window.TPLAN_QUERIES.forEach(function (q) {
      var given = new URLSearchParams(q);
      form.querySelectorAll('input, select').forEach(function (el) {
        var v = given.has(el.name) ? given.get(el.name) : '';
        if (el.tagName === 'SELECT' && !Array.prototype.some.call(el.options,
            function (o) { return o.value === v; }))
          el.add(new Option(v, v));
        el.value = v;
      });
      form.dispatchEvent(new Event('input', { bubbles: true }));
      var r = JSON.parse(document.getElementById('tplan-result').textContent);
      var shown = r.field && document.getElementById('err-' + r.field);
      out.push({ q: q, result: r, shown: shown ? shown.textContent : null,
                 url: location.search.slice(1) });
    });
    // a pasted config.json: malformed, then one calc refuses; each shows
    // its one-line message next to the textarea
    var ta = document.getElementById('in-config');
    ['{"model_type": "llama",', '{"model_type": "olmoe", "hidden_size": 2048}'].forEach(function (t) {
      ta.value = t;
      ta.dispatchEvent(new Event('input', { bubbles: true }));
      out.push({ q: 'config', config: t,
                 result: JSON.parse(document.getElementById('tplan-result').textContent),
                 shown: document.getElementById('err-model_config').textContent,
                 invalid: ta.getAttribute('aria-invalid') });
    });
    ta.value = '';
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    // the lists (the engine's catalogs) and a grid over two chosen axes,
    // kept in the URL
    var opts = function (id) {
      return Array.prototype.map.call(document.querySelectorAll('#' + id + ' option'),
                                      function (o) { return o.value; });
    };
    var q0 = window.TPLAN_QUERIES[0], g = new URLSearchParams(q0);
    form.querySelectorAll('input, select:not(.axis)').forEach(function (el) {
      el.value = g.has(el.name) ? g.get(el.name) : '';
    });
    document.getElementById('in-grid-x').value = 'gpus';
    document.getElementById('in-grid-y').value = 'tp';
    form.dispatchEvent(new Event('input', { bubbles: true }));
    out.push({ lists: { models: opts('list-models'), gpus: opts('list-gpus') },
               url: location.search.slice(1),
               grid: { title: document.getElementById('grid-title').textContent,
                       rows: document.querySelectorAll('#grid tr').length,
                       cells: document.querySelectorAll('#grid td').length } });
    var pre = document.createElement('pre');
    pre.id = 'tplan-test-out';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
  run();
})();
