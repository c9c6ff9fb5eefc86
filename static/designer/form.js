// Requirements form: presets, switch-model autofill, and live recalculation through
// POST /api/v1/evaluate/?layout=flat — the same validation path as saving.
(function () {
  const form = document.getElementById("requirements-form");
  const presets = JSON.parse(document.getElementById("preset-values").textContent);
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const status = document.getElementById("live-status");
  const figures = document.getElementById("live-figures");
  const field = (name) => form.querySelector(`[name="${name}"]`);
  const panelErrors = document.getElementById("live-errors");
  const staleNote = document.getElementById("live-stale");
  const checksBox = document.getElementById("live-checks");
  const checksList = document.getElementById("live-checks-list");

  function setValue(name, value) {
    const el = field(name);
    if (!el) return;
    if (el.type === "checkbox") el.checked = Boolean(value);
    else el.value = value === null || value === undefined ? "" : value;
  }

  // A preset carries every field (its own values over the defaults), so it also resets what
  // an earlier preset or the user changed; the fields the preset itself sets are marked.
  const presetNote = document.getElementById("preset-note");
  document.getElementById("preset").addEventListener("change", (e) => {
    const values = presets[e.target.value];
    if (!values) return;
    const set = new Set(values._set || []);
    for (const [name, value] of Object.entries(values)) if (name !== "_set") setValue(name, value);
    form.querySelectorAll(".field").forEach((el) => el.classList.toggle("preset-set", set.has(el.id.slice(5))));
    if (presetNote) {
      presetNote.textContent = `The preset set ${set.size} fields (marked); every other field is back to its default.`;
    }
    schedule();
  });

  const models = {};
  const modelSelect = field("switch_model");
  if (modelSelect) {
    for (const opt of modelSelect.options) {
      const m = opt.textContent.match(/— (\d+) × ([\d.]+)G/);
      if (m) models[opt.value] = { radix: m[1], port: m[2] };
    }
    modelSelect.addEventListener("change", () => {
      const m = models[modelSelect.value];
      if (m) { setValue("switch_radix", m.radix); setValue("switch_port_gbps", m.port); }
    });
  }

  function clearErrors() {
    form.querySelectorAll(".field-error").forEach((el) => (el.textContent = ""));
    form.querySelectorAll(".field.has-error").forEach((el) => el.classList.remove("has-error"));
  }

  function showErrors(errors) {
    const loose = [];
    for (const [name, msgs] of Object.entries(errors)) {
      const slot = document.getElementById("error-" + name);
      if (slot) {
        slot.textContent = msgs.join(" ");
        const wrap = document.getElementById("wrap-" + name);
        wrap.classList.add("has-error");
        const section = wrap.closest("details");
        if (section) section.open = true;
      } else loose.push(`${name}: ${msgs.join(" ")}`);
    }
    status.textContent = loose.length ? loose.join("; ") : "Fix the highlighted fields.";
    status.className = "error";
    // the figures below belong to the last valid values: grey them out and say so
    figures.classList.add("stale");
    panelErrors.textContent = "";
    for (const [name, msgs] of Object.entries(errors)) {
      const li = document.createElement("li");
      li.textContent = `${name}: ${msgs.join(" ")}`;
      panelErrors.append(li);
    }
    staleNote.hidden = !figures.childElementCount;
  }

  // The design's one list of checks (cluster/pipeline.py ClusterPlan.checks): every section's, as the
  // design page and every export show them; the panel lists the failing ones.
  const checksCount = document.getElementById("live-checks-count");
  function showChecks(r) {
    checksList.textContent = "";
    const all = r.checks || [];
    const failing = all.filter((c) => !c.ok);
    for (const c of failing) {
      const li = document.createElement("li");
      li.dataset.section = c.section;
      li.textContent = `${c.section} · ${c.name} (${c.field}): ${c.message}`;
      checksList.append(li);
    }
    if (checksCount) checksCount.textContent = `${failing.length} check(s) fail of ${all.length}`;
    checksBox.hidden = failing.length === 0;
  }

  function row(label, value) {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.textContent = value;
    figures.append(dt, dd);
  }

  function showFigures(r) {
    figures.textContent = "";
    const f = r.compute_fabric, s = r.storage, m = r.management;
    const fmt = (x, d = 0) => Number(x).toLocaleString(undefined, { maximumFractionDigits: d });
    row("Compute switches", f.tiers.map((t) => `${fmt(t.switch_count)} ${t.name}`).join(" + ") || "none (direct)");
    row("Compute links", `${fmt(f.link_count)} (${fmt(f.link_end_count)} ends)`);
    row("Bisection", `${fmt(f.bisection_tbyte_s, 2)} TB/s`);
    row("Max endpoints", fmt(f.max_endpoint_count));
    row("Storage", `${fmt(s.usable_tb)} TB usable, ${fmt(s.switch_count)} switches`);
    row("Checkpoint write", `${fmt(s.checkpoint_write_gbyte_s, 2)} GB/s`);
    row("Management", `${fmt(m.tor_count)} ToRs + ${fmt(m.spine_count)} spines`);
    if (r.bom) row("Network BOM", `$${fmt(Number(r.bom.total_usd))}`);
    if (r.power) {
      row("IT / facility", `${fmt(r.power.facility.it_kw)} / ${fmt(r.power.facility.facility_kw)} kW`);
      row("Racks", `${fmt(r.power.racks.rack_count)} (${r.power.cooling.cooling_type.replace(/_/g, " ")})`);
      row(`${r.power.tco.years}-year TCO`, `$${fmt(Number(r.power.tco.total_usd))}`);
    }
    status.textContent = "Live figures for the values above (not saved yet).";
    status.className = "muted";
    figures.classList.remove("stale");
    staleNote.hidden = true;
    panelErrors.textContent = "";
    showChecks(r);
  }

  let timer = null, seq = 0;
  function schedule() { clearTimeout(timer); timer = setTimeout(recalc, 350); }

  async function recalc() {
    const mine = ++seq;
    const body = {};
    for (const [k, v] of new FormData(form).entries()) if (k !== "message") body[k] = v;
    // an unchecked box is absent from FormData: say "false" rather than fall back to the default
    form.querySelectorAll("input[type=checkbox][name]").forEach((el) => (body[el.name] = el.checked));
    status.textContent = "Calculating…";
    try {
      const resp = await fetch("/api/v1/evaluate/?layout=flat", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify(body),
        credentials: "same-origin",
      });
      if (mine !== seq) return;
      const data = await resp.json();
      clearErrors();
      if (resp.ok) showFigures(data); else showErrors(data.errors || {});
    } catch (err) {
      status.textContent = "Could not reach the server to recalculate.";
    }
  }

  form.addEventListener("input", schedule);
  form.addEventListener("change", schedule);
  recalc();
})();
