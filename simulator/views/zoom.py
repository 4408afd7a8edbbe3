"""The report page's timeline zoom, a few lines of inline JavaScript (no library, no network).

Clicking a phase band or dragging across the chart rescales the time axis; a "Whole run" button resets it.
The script reads the virtual instants the SVG carries (see :func:`simulator.views.gantt.render_svg`), so a
reader without JavaScript still gets the whole chart as it was written.
"""

SCRIPT = r"""
// Zoom for the report page's timeline: click a phase band or drag across the chart to rescale the
// time axis; "Whole run" resets. Every element placed in time carries data-t0 (and data-t1), and the
// <svg> its scale (data-start, data-end, data-left, data-area), so positions are recomputed here.
// Without this script the whole run is drawn, as the SVG was written.
(function () {
  var svg = document.querySelector('#timeline svg.timeline');
  var controls = document.getElementById('timeline-controls');
  if (!svg || !controls || !svg.getScreenCTM) { return; }
  var NS = svg.namespaceURI;
  var CHAR = 6;  // a label character's width, as gantt._LABEL_CHAR
  var num = function (el, name) { return parseFloat(el.getAttribute(name)); };
  var whole = [num(svg, 'data-start'), num(svg, 'data-end')];
  var left = num(svg, 'data-left'), area = num(svg, 'data-area');
  var ticks = svg.querySelector('g.ticks');
  var axisY = num(ticks, 'data-axis-y'), top = num(ticks, 'data-top');
  var reset = document.getElementById('timeline-reset');
  var shown = document.getElementById('timeline-range');
  var view = whole.slice();
  controls.hidden = false;

  function x(t) { return left + (t - view[0]) / (view[1] - view[0]) * area; }
  function time(px) { return view[0] + (px - left) / area * (view[1] - view[0]); }
  function pad(n, w) { n = String(n); while (n.length < w) { n = '0' + n; } return n; }
  function fmt(t) {
    var ms = Math.round(t * 1000);
    return pad(Math.floor(ms / 3600000), 2) + ':' + pad(Math.floor(ms / 60000) % 60, 2) + ':' +
      pad(Math.floor(ms / 1000) % 60, 2) + '.' + pad(ms % 1000, 3);
  }
  function step(duration) {
    var raw = duration / 8, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var factors = [1, 2, 5, 10];
    for (var i = 0; i < factors.length; i++) { if (raw <= factors[i] * mag) { return factors[i] * mag; } }
    return 10 * mag;
  }
  function el(name, attrs, text) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) { node.textContent = text; }
    return node;
  }
  function draw() {
    svg.querySelectorAll('rect[data-t0]').forEach(function (r) {
      var a = x(num(r, 'data-t0')), b = x(num(r, 'data-t1'));
      r.setAttribute('x', a.toFixed(1));
      r.setAttribute('width', Math.max(b - a, 2).toFixed(1));
    });
    svg.querySelectorAll('text.phase-label').forEach(function (t) {
      t.setAttribute('x', (Math.max(x(num(t, 'data-t0')), left) + 4).toFixed(1));
    });
    // Bar labels, row by row, by the rule gantt.place_labels follows: inside the bar when the word
    // fits, else beside it (right then left; left first when the next bar follows at once) where it
    // covers nothing, else its short form, else whole.
    var rows = {};
    svg.querySelectorAll('text.bar-label').forEach(function (t) {
      var row = t.getAttribute('data-row');
      (rows[row] = rows[row] || []).push(t);
    });
    Object.keys(rows).forEach(function (row) {
      var labels = rows[row];
      var taken = labels.map(function (t) {
        var a = x(num(t, 'data-t0'));
        return [a, Math.max(x(num(t, 'data-t1')), a + 2)];
      });
      labels.forEach(function (t, i) {
        var a = taken[i][0], b = taken[i][1], place = null;
        [t.getAttribute('data-action'), t.getAttribute('data-short')].some(function (text) {
          var w = text.length * CHAR;
          if (w + 6 <= b - a) { place = [text, a + 3]; return true; }
          var sides = [b + 3, a - w - 3];
          var next = i + 1 < labels.length ? taken[i + 1][0] : Infinity;
          if (next < b + w + 4) { sides.reverse(); }  // the next bar is right there
          sides.some(function (at) {
            var free = taken.every(function (iv) { return at + w + 1 <= iv[0] || at - 1 >= iv[1]; });
            if (free && at >= left && at + w <= left + area) {
              place = [text, at];
              taken.push([at, at + w]);
              return true;
            }
            return false;
          });
          return place !== null;
        });
        place = place || [t.getAttribute('data-action'), b + 3];
        t.textContent = place[0];
        t.setAttribute('x', place[1].toFixed(1));
      });
    });
    svg.querySelectorAll('g.fault').forEach(function (g) {
      g.setAttribute('transform', 'translate(' + x(num(g, 'data-t0')).toFixed(1) + ' ' + g.getAttribute('data-y') + ')');
    });
    while (ticks.firstChild) { ticks.removeChild(ticks.firstChild); }
    var s = step(view[1] - view[0]);
    for (var t = Math.ceil(view[0] / s) * s; t <= view[1] + 1e-9; t += s) {
      var px = x(t).toFixed(1);
      ticks.appendChild(el('line', { x1: px, y1: top, x2: px, y2: axisY + 4, stroke: '#d0d0d0' }));
      ticks.appendChild(el('text', { x: (x(t) - 40).toFixed(1), y: axisY + 16, 'font-size': 10 }, fmt(t)));
    }
    var all = view[0] === whole[0] && view[1] === whole[1];
    reset.disabled = all;
    shown.textContent = all ? 'whole run' : fmt(view[0]) + ' → ' + fmt(view[1]);
  }
  function zoom(t0, t1) {
    t0 = Math.max(t0, whole[0]); t1 = Math.min(t1, whole[1]);
    if (t1 - t0 < 1e-3) { var mid = (t0 + t1) / 2; t0 = mid - 5e-4; t1 = mid + 5e-4; }
    view = [t0, t1];
    draw();
  }
  function svgX(event) {
    var p = svg.createSVGPoint();
    p.x = event.clientX; p.y = event.clientY;
    return p.matrixTransform(svg.getScreenCTM().inverse()).x;
  }
  var from = null, dragged = false;
  var band = el('rect', { class: 'zoom-selection', y: 0, height: axisY, fill: '#3b6fb6', 'fill-opacity': 0.15, visibility: 'hidden' });
  svg.appendChild(band);
  svg.addEventListener('mousedown', function (e) {
    var px = svgX(e);
    if (px < left || px > left + area) { return; }
    from = px; dragged = false; e.preventDefault();
  });
  svg.addEventListener('mousemove', function (e) {
    if (from === null) { return; }
    var px = Math.min(Math.max(svgX(e), left), left + area);
    if (Math.abs(px - from) > 3) { dragged = true; }
    band.setAttribute('x', Math.min(px, from).toFixed(1));
    band.setAttribute('width', Math.abs(px - from).toFixed(1));
    band.setAttribute('visibility', dragged ? 'visible' : 'hidden');
  });
  window.addEventListener('mouseup', function (e) {
    if (from === null) { return; }
    var px = Math.min(Math.max(svgX(e), left), left + area);
    band.setAttribute('visibility', 'hidden');
    if (dragged) { zoom(time(Math.min(px, from)), time(Math.max(px, from))); }
    from = null;
  });
  svg.querySelectorAll('g.phase').forEach(function (g) {
    g.addEventListener('click', function () {
      if (!dragged) { zoom(num(g, 'data-t0'), num(g, 'data-t1')); }
    });
  });
  reset.addEventListener('click', function () { view = whole.slice(); draw(); });
  draw();
})();
"""
