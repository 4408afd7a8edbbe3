// Runs the report page's script against a minimal stand-in for the browser DOM (node has none), so the
// timeline zoom can be tested without a browser. Reads {elements, script, steps} as JSON on stdin;
// prints the timeline's state after each step as JSON.
'use strict';
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));

class Element {
  constructor(tag, attrs, text) {
    this.tagName = tag; this.attrs = Object.assign({}, attrs); this.textContent = text || '';
    this.children = []; this.handlers = {}; this.hidden = false; this.disabled = false;
  }
  getAttribute(k) { return k in this.attrs ? String(this.attrs[k]) : null; }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  addEventListener(kind, fn) { (this.handlers[kind] = this.handlers[kind] || []).push(fn); }
  fire(kind, event) { (this.handlers[kind] || []).forEach((fn) => fn(event)); }
  get firstChild() { return this.children[0] || null; }
  appendChild(child) { this.children.push(child); all.push(child); return child; }
  removeChild(child) {
    this.children.splice(this.children.indexOf(child), 1);
    all.splice(all.indexOf(child), 1);
  }
  matches(selector) {
    const m = /^(\w+)(?:\.([\w-]+))?(?:\[([\w-]+)\])?$/.exec(selector);
    if (!m || m[1] !== this.tagName) { return false; }
    if (m[2] && (this.getAttribute('class') || '').split(/\s+/).indexOf(m[2]) < 0) { return false; }
    return !m[3] || m[3] in this.attrs;
  }
  querySelectorAll(selector) { return all.filter((e) => e !== this && e.matches(selector)); }
  querySelector(selector) { return this.querySelectorAll(selector)[0] || null; }
  getComputedTextLength() { return this.textContent.length * 6; }
  createSVGPoint() {
    return { x: 0, y: 0, matrixTransform() { return { x: this.x, y: this.y }; } };
  }
  getScreenCTM() { return { inverse() { return {}; } }; }
}

const all = [];
const byId = {};
for (const spec of input.elements) {
  const e = new Element(spec.tag, spec.attrs, spec.text);
  if (spec.attrs.id) { byId[spec.attrs.id] = e; }
  all.push(e);
  if (spec.parent !== undefined && spec.parent !== null) { all[spec.parent].children.push(e); }
}
const svg = all.find((e) => e.tagName === 'svg');
svg.namespaceURI = 'svg';
const windowHandlers = new Element('window', {});
global.window = windowHandlers;
global.document = {
  getElementById: (id) => byId[id] || null,
  querySelector: (sel) => (sel === '#timeline svg.timeline' ? svg : null),
  createElementNS: (ns, tag) => new Element(tag, {}),
};
eval(input.script);

function state() {
  const pick = (sel) => svg.querySelectorAll(sel).map((e) => Object.assign({}, e.attrs));
  return {
    bars: pick('rect[data-row]'),
    bands: pick('rect[data-t0]').filter((a) => (a.class || '') === 'phase-band'),
    labels: svg.querySelectorAll('text.bar-label').map((e) => Object.assign({ text: e.textContent }, e.attrs)),
    ticks: svg.querySelector('g.ticks').children.filter((e) => e.tagName === 'text').map((e) => e.textContent),
    range: byId['timeline-range'].textContent,
    resetDisabled: byId['timeline-reset'].disabled,
    controlsHidden: byId['timeline-controls'].hidden,
  };
}
const out = [state()];
for (const step of input.steps) {
  if (step.click_phase) {
    svg.querySelectorAll('g.phase').filter((g) => g.attrs['data-phase'] === step.click_phase)[0].fire('click', {});
  } else if (step.drag) {
    const [a, b] = step.drag;
    svg.fire('mousedown', { clientX: a, clientY: 50, preventDefault() {} });
    svg.fire('mousemove', { clientX: b, clientY: 50 });
    windowHandlers.fire('mouseup', { clientX: b, clientY: 50 });
  } else if (step.reset) {
    byId['timeline-reset'].fire('click', {});
  }
  out.push(state());
}
process.stdout.write(JSON.stringify(out));
