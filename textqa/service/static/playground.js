// textqa playground: one panel per model, each calling the public /v1 endpoint.  No framework,
// no build step; every piece of text from the user or the server goes in with textContent.
"use strict";

const MAX_QUERY = 3000;      // characters of state kept in the query string (gunicorn reads 4094-byte request lines)

const FIELDS = {
  truecase: ["text", "method", "tokenized"],
  blanc: ["hypothesis", "references"],
  icd9: ["text", "classifier"],
  qa: ["question", "top_k", "collection"],
};

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;      // CSSOM, which the page's CSP allows (no inline styles)
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const fmt = (x, d = 4) => (typeof x === "number" ? x.toFixed(d) : String(x));

function formValues(model) {
  const form = document.querySelector(`#panel-${model} form`);
  const out = {};
  for (const name of FIELDS[model]) {
    const el = form.elements[name];
    out[name] = el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
  }
  return out;
}

function setFormValues(model, params) {
  const form = document.querySelector(`#panel-${model} form`);
  let any = false;
  for (const name of FIELDS[model]) {
    if (!params.has(name)) continue;
    any = true;
    const el = form.elements[name];
    if (el.type === "checkbox") el.checked = ["1", "true", "on"].includes(params.get(name));
    else el.value = params.get(name);
  }
  return any;
}

function requestFor(model, v) {
  switch (model) {
    case "truecase":
      return ["/v1/truecase", { text: v.text, baseline: v.method === "unigram", tokenized: v.tokenized === "1" }];
    case "blanc":
      return ["/v1/blanc/score", {
        pairs: [{ hypothesis: v.hypothesis, references: v.references.split("\n").filter((r) => r.trim() !== "") }],
        explain: true,
      }];
    case "icd9":
      return ["/v1/icd9/code", { documents: [{ id: "playground", text: v.text }], classifier: v.classifier, explain: true }];
    case "qa": {
      const k = Number(v.top_k);
      return ["/v1/qa/answer", { question: v.question, top_k: Number.isFinite(k) && v.top_k !== "" ? k : v.top_k,
        collection: v.collection || "default" }];
    }
  }
  throw new Error(`unknown model ${model}`);
}

// ------------------------------------------------------------------ renderers
function modelLine(info) {
  if (!info) return null;
  const bits = [info.name];
  if (info.id) bits.push(`id ${info.id}`);
  if (info.method) bits.push(`method ${info.method}`);
  if (info.created_at) bits.push(`trained ${info.created_at}`);
  return h("p", { class: "muted model-line" }, "Answered by ", bits.join(" · "));
}

function renderTruecase(body, sent) {
  const input = sent.text, out = body.text;
  const p = h("p", { class: "cased" });
  if (typeof out === "string" && out.length === input.length) {
    let run = "", changed = false;
    const flush = () => { if (run) p.append(changed ? h("mark", { class: "changed" }, run) : run); run = ""; };
    for (let i = 0; i < out.length; i++) {
      const c = out[i] !== input[i];
      if (c !== changed) { flush(); changed = c; }
      run += out[i];
    }
    flush();
  } else {
    p.textContent = out;
  }
  const n = p.querySelectorAll("mark").length;
  return [p, h("p", { class: "muted" }, `${n} run(s) of letters changed case (highlighted).`), modelLine(body.model)];
}

function renderBlanc(body) {
  const s = body.scores[0], e = s.explanation;
  const scores = h("div", { class: "scores" },
    h("span", {}, "BLANC ", h("b", { class: "score" }, fmt(s.score))),
    h("span", {}, "precision ", h("b", {}, fmt(s.precision))),
    h("span", {}, "recall ", h("b", {}, fmt(s.recall))));
  const parts = [scores];
  if (e) {
    const kind = (weights, n) => Array.from({ length: n }, (_, i) => weights.get(i));
    const hw = new Map(e.alignment.map((a) => [a.hypothesis, a.weight]));
    const rw = new Map(e.alignment.map((a) => [a.reference, a.weight]));
    const toks = (list, w) => list.map((t, i) => {
      const x = w[i];
      return h("span", { class: "tok" + (x === undefined ? "" : x >= 1 ? " exact" : " partial"),
        title: x === undefined ? "unmatched" : `match weight ${x}` }, t);
    });
    parts.push(h("p", {}, h("b", {}, "Hypothesis: "), toks(e.hypothesis_tokens, kind(hw, e.hypothesis_tokens.length))));
    parts.push(h("p", {}, h("b", {}, `Best reference (#${e.reference + 1}): `),
      toks(e.reference_tokens, kind(rw, e.reference_tokens.length))));
    parts.push(h("p", { class: "muted" }, "Green: exact match; dashed: partial (prefix or look-alike) match."));
    parts.push(h("table", { class: "sizes" },
      h("tr", {}, h("th", {}, "skip-n-gram size k"), h("th", {}, "common mass"), h("th", {}, "hypothesis mass"),
        h("th", {}, "reference mass")),
      e.sizes.map((z) => h("tr", {}, h("td", {}, z.k), h("td", { class: "num" }, fmt(z.common, 2)),
        h("td", { class: "num" }, fmt(z.hypothesis, 2)), h("td", { class: "num" }, fmt(z.reference, 2))))));
    parts.push(h("p", {}, h("b", {}, "Matched skip-bigrams: "),
      h("span", { class: "chips" }, e.skip_bigrams.length ? e.skip_bigrams.map((b) => h("span", {}, b)) : "none")));
  }
  parts.push(h("p", { class: "muted" }, "Signature: ", body.signature), modelLine(body.model));
  return parts;
}

function renderIcd9(body, sent) {
  const doc = body.documents[0];
  const parts = [];
  if (doc.codes.length) {
    const brr = body.classifier === "brr";
    parts.push(h("table", { class: "codes" },
      h("tr", {}, h("th", {}, "code"), h("th", {}, "description"), h("th", {}, "score"), brr ? h("th", {}, "probability") : null),
      doc.codes.map((c) => h("tr", {}, h("td", {}, c.code), h("td", {}, c.description || "—"),
        h("td", { class: "num" }, fmt(c.score, 3)), brr ? h("td", { class: "num" }, fmt(c.probability, 3)) : null))));
  } else {
    parts.push(h("p", { class: "codes" }, "No code is above its threshold."));
  }
  if (doc.review) parts.push(h("p", { class: "muted" }, "A code is within one standard deviation of its threshold: send to a human coder."));
  const text = sent.documents[0].text;
  const report = h("div", { class: "report" });
  const spans = (doc.spans || []).filter((s) => s.section === "text").sort((a, b) => a.start - b.start);
  let pos = 0;
  for (const s of spans) {
    if (s.start < pos) continue;
    report.append(text.slice(pos, s.start));
    report.append(h("span", { class: `span-${s.kind}`, title: s.kind === "trigger" ? `${s.trigger} trigger` : s.kind },
      text.slice(s.start, s.end)));
    pos = s.end;
  }
  report.append(text.slice(pos));
  parts.push(h("p", { class: "legend" }, h("span", { class: "span-trigger" }, "trigger"),
    h("span", { class: "span-negated" }, "negated"), h("span", { class: "span-uncertain" }, "uncertain"),
    "— the words the coder reads as negated or uncertain"));
  parts.push(report, modelLine(body.model));
  return parts;
}

function markAnswer(a) {
  // the answer's character offsets in its sentence (as written), from the server
  const s = a.sentence, i = a.start, j = a.end;
  if (!(Number.isInteger(i) && Number.isInteger(j) && 0 <= i && i < j && j <= s.length)) return [s];
  return [s.slice(0, i), h("mark", {}, s.slice(i, j)), s.slice(j)];
}

function documentLine(doc) {
  if (!doc) return null;
  const title = doc.url && /^https?:\/\//.test(doc.url)
    ? h("a", { href: doc.url, target: "_blank", rel: "noopener noreferrer" }, doc.title || doc.id)
    : h("span", {}, doc.title || doc.id);
  return h("span", { class: "muted doc" }, "from ", title, doc.collection ? ` (${doc.collection})` : "");
}

async function loadCollections() {
  // the collection selector: what GET /v1/qa/collections lists (the default first)
  const select = document.querySelector("#panel-qa select[name=collection]");
  if (!select) return;
  try {
    const resp = await fetch("/v1/qa/collections");
    if (!resp.ok) return;
    const body = await resp.json();
    const chosen = select.value;
    select.replaceChildren(...body.collections.map((c) => h("option", { value: c.name },
      `${c.name}: ${c.description}`)));
    select.value = body.collections.some((c) => c.name === chosen) ? chosen : body.default;
  } catch (err) {
    /* the selector keeps "default" */
  }
}

function renderQa(body) {
  const types = Object.entries(body.answer_type).sort((a, b) => b[1] - a[1]);
  const parts = [
    h("p", {}, h("b", {}, "Question class (UIUC): "), body.uiuc_type),
    h("p", {}, h("b", {}, "Clusters matched: "), h("span", { class: "chips" }, body.clusters.map((c) => h("span", {}, c)))),
    h("table", { class: "types" }, h("tr", {}, h("th", {}, "answer type"), h("th", {}, "probability"), h("th", {}, "")),
      types.slice(0, 8).map(([t, p]) => h("tr", {}, h("td", {}, t), h("td", { class: "num" }, fmt(p, 3)),
        h("td", {}, h("span", { class: "bar", style: `width:${Math.round(p * 200)}px` }))))),
  ];
  if (body.answers.length) {
    parts.push(h("ol", { class: "answers" }, body.answers.map((a) => h("li", {},
      h("b", { class: "answer" }, a.answer), ` (score ${fmt(a.score, 3)}) `, documentLine(a.document), h("br"),
      h("span", {}, markAnswer(a)), h("br"),
      h("span", { class: "muted" }, "proposed by clusters: ", a.clusters.join(", "))))));
  } else {
    parts.push(h("p", { class: "answers" }, "No answer found."));
  }
  parts.push(modelLine(body.model));
  return parts;
}

const RENDER = { truecase: renderTruecase, blanc: renderBlanc, icd9: renderIcd9, qa: renderQa };

// ------------------------------------------------------------------ running a panel
function describeError(status, body, retryAfter) {
  const e = body && body.error;
  if (e && e.code === "overloaded") {   // the server is at its bound on requests in flight: nothing was done
    return `Busy, retry in ${retryAfter || 1} s: the model is answering as many requests as it takes at once (HTTP ${status}, ${e.code}).`;
  }
  if (e && e.message) {
    const where = e.field && !e.message.startsWith(e.field + ":") ? `${e.field}: ` : "";
    return `${where}${e.message} (HTTP ${status}, ${e.code})`;
  }
  return `The server answered HTTP ${status} without an error message.`;
}

async function run(model) {
  const panel = document.getElementById(`panel-${model}`);
  const errBox = panel.querySelector(".error"), result = panel.querySelector(".result");
  const values = formValues(model);
  const url = new URLSearchParams({ model, ...values }).toString();
  // the state goes in the query string; a long one (a whole report) in the fragment, which the
  // browser never sends, so that no link exceeds a server's request-line limit
  history.replaceState(null, "", url.length <= MAX_QUERY ? `/?${url}` : `/#${url}`);
  const [path, payload] = requestFor(model, values);
  panel.dataset.state = "running";
  errBox.hidden = true;
  let status = 0, body = null, retryAfter = null;
  try {
    const resp = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
    status = resp.status;
    retryAfter = resp.headers.get("Retry-After");
    body = await resp.json().catch(() => null);
  } catch (err) {
    errBox.textContent = `Could not reach the server: ${err.message}`;
    errBox.hidden = false; result.hidden = true; panel.dataset.state = "error";
    return;
  }
  if (status !== 200 || !body) {
    errBox.textContent = describeError(status, body, retryAfter);
    errBox.hidden = false; result.hidden = true; panel.dataset.state = "error";
    return;
  }
  result.replaceChildren(...RENDER[model](body, payload).filter(Boolean));
  result.hidden = false;
  panel.dataset.state = "done";
}

function show(model) {
  for (const p of document.querySelectorAll(".panel")) p.hidden = p.dataset.model !== model;
  for (const b of document.querySelectorAll("#tabs button")) b.setAttribute("aria-selected", String(b.dataset.model === model));
  document.body.dataset.model = model;
}

const minutes = (s) => (s >= 90 ? `about ${Math.round(s / 60)} min` : "under 2 min");

function trainingText(name, st) {
  if (st.state === "queued") return `${name} is queued for training: ready in ${minutes(st.eta_seconds || 0)} (estimated)`;
  if (st.state === "training") {
    return `${name} is training (${st.step || "starting"}): ${Math.round(st.percent || 0)}%, ` +
      `${minutes(st.eta_seconds || 0)} left (estimated)`;
  }
  return `${name} is not available: ${st.error || st.state}`;
}

function statusBox(model) {
  const panel = document.getElementById(`panel-${model}`);
  let box = panel.querySelector(".training");
  if (!box) {
    box = h("div", { class: "training", role: "status" }, h("progress", { max: "100", value: "0" }), h("span", {}));
    panel.querySelector("h2").after(box);
  }
  return box;
}

// every model's state from /v1/models: a tab per model the server has; a model being trained shows
// its progress in its tab and panel, and its panel answers once the model is loaded
async function refreshModels() {
  const line = document.getElementById("versions");
  let body;
  try {
    loadCollections();
    const resp = await fetch("/v1/models");
    body = await resp.json();
  } catch (err) {
    line.textContent = `Could not read /v1/models: ${err.message}`;
    return;
  }
  const served = new Set(Object.values(body.models).map((m) => m.verb));
  for (const b of document.querySelectorAll("#tabs button")) b.hidden = !served.has(b.dataset.model);
  let waiting = false;
  for (const [name, m] of Object.entries(body.models)) {
    const panel = document.getElementById(`panel-${m.verb}`);
    const tab = document.querySelector(`#tabs button[data-model="${m.verb}"]`);
    if (!panel || !tab) continue;
    const box = statusBox(m.verb), submit = panel.querySelector("button[type=submit]");
    const badge = tab.querySelector(".badge") || tab.appendChild(h("span", { class: "badge" }));
    if (m.loaded) {
      box.hidden = true; submit.disabled = false; badge.textContent = "";
      panel.dataset.availability = "ready";
      if (panel.dataset.pending === "1") { panel.dataset.pending = ""; run(m.verb); }
      continue;
    }
    const st = m.training || { state: "not_loaded", error: m.error };
    box.hidden = false; submit.disabled = true;
    const bar = box.querySelector("progress");
    if (st.state === "training") bar.value = Math.round(st.percent || 0); else bar.removeAttribute("value");
    box.querySelector("span").textContent = trainingText(name, st);
    badge.textContent = st.state === "training" ? ` ${Math.round(st.percent || 0)}%` : st.state === "queued" ? " queued" : " off";
    panel.dataset.availability = st.state;
    waiting = waiting || st.state === "queued" || st.state === "training";
  }
  const items = Object.entries(body.models).map(([name, m]) => m.loaded
    ? `${name} ${m.manifest.created_at || ""} (textqa ${m.manifest.package_version || "?"})`
    : `${name}: ${m.training ? m.training.state : "not loaded"}`);
  line.textContent = "Models: " + items.join(" · ");
  if (waiting) setTimeout(refreshModels, 3000);
}

document.addEventListener("DOMContentLoaded", () => {
  for (const b of document.querySelectorAll("#tabs button")) {
    b.addEventListener("click", () => {
      show(b.dataset.model);
      history.replaceState(null, "", `/?model=${b.dataset.model}`);
    });
  }
  for (const model of Object.keys(FIELDS)) {
    document.querySelector(`#panel-${model} form`).addEventListener("submit", (ev) => { ev.preventDefault(); run(model); });
  }
  const params = new URLSearchParams(location.hash.length > 1 ? location.hash.slice(1) : location.search);
  const model = FIELDS[params.get("model")] ? params.get("model") : "truecase";
  show(model);
  const prefilled = setFormValues(model, params);
  refreshModels().then(() => {
    if (!prefilled) return;
    const panel = document.getElementById(`panel-${model}`);
    if (panel.dataset.availability === "ready") run(model);
    else panel.dataset.pending = "1";                 // runs once the model is loaded
  });
});
