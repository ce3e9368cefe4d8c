// Measures every chart of a tplan report as Chromium lays it out, for
// tests/report_geometry.py: test_report.sh appends this script to a copy
// of the page and dumps the DOM, which then carries the figures as JSON
// in a pre element with id "geometry". Per chart: the plot frame's box, the union of
// its marks' boxes in x and in y (points, lines, bar parts, reference
// lines: what the data put on the plot), how many distinct data values
// each axis carries, and the boxes of its text elements.
(function () {
  const out = [];
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  // a figure of panels (best-by-axis) is measured panel by panel
  for (const svg of document.querySelectorAll("figure.chart svg")) {
    const frame = svg.querySelector("rect.frame");
    if (!frame) continue;
    const fig = svg.closest("figure.chart");
    const panels = fig.querySelectorAll("svg");
    const at = Array.prototype.indexOf.call(panels, svg);
    const c = { chart: fig.dataset.chart, panel: panels.length > 1 ? at : null,
                frame: box(frame), x: null, y: null, xs: [], ys: [], texts: [] };
    const grow = (k, lo, hi) => {
      if (!isFinite(lo) || !isFinite(hi)) return;
      c[k] = c[k] ? [Math.min(c[k][0], lo), Math.max(c[k][1], hi)] : [lo, hi];
    };
    for (const m of svg.querySelectorAll(".mark, polyline, rect.part[data-field]")) {
      const b = box(m);
      if (b[2] - b[0] <= 0 && b[3] - b[1] <= 0) continue;
      grow("x", b[0], b[2]);
      grow("y", b[1], b[3]);
      if (m.dataset.x !== undefined) c.xs.push(m.dataset.x);
      if (m.dataset.y !== undefined) c.ys.push(m.dataset.y);
      if (m.dataset.value !== undefined) c.xs.push(m.dataset.value);
    }
    for (const l of svg.querySelectorAll("line.ref")) {
      const b = box(l);
      // a horizontal line marks a y value, a vertical one an x value
      if (b[3] - b[1] < 1) { grow("y", b[1], b[3]); c.ys.push(l.dataset.value); }
      else { grow("x", b[0], b[2]); c.xs.push(l.dataset.value); }
    }
    for (const t of svg.querySelectorAll("text")) {
      if (!t.textContent.trim()) continue;
      c.texts.push({ text: t.textContent, cls: t.getAttribute("class") || "",
                     box: box(t) });
    }
    out.push(c);
  }
  const pre = document.createElement("pre");
  pre.id = "geometry";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
