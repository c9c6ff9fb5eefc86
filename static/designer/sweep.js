// Poll a sweep's progress; reload once it finishes so the charts show every point.
(function () {
  const text = document.getElementById("progress-text");
  if (!text) return;
  const url = text.dataset.url;
  let status = text.dataset.status;
  if (status !== "pending" && status !== "running") return;
  async function poll() {
    try {
      const r = await fetch(url, { credentials: "same-origin" });
      const p = await r.json();
      document.getElementById("progress-bar").style.width = (100 * p.fraction_done).toFixed(1) + "%";
      document.getElementById("progress-status").textContent = p.status;
      document.getElementById("progress-done").textContent = p.done_points.toLocaleString();
      document.getElementById("progress-rate").textContent = Math.round(p.points_per_s).toLocaleString();
      document.getElementById("progress-eta").textContent = p.eta_s === null ? "—" : `${Math.round(p.eta_s).toLocaleString()} s`;
      if (p.status !== "pending" && p.status !== "running") { window.location.reload(); return; }
    } catch (e) { /* keep polling */ }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();

// The sweep form: its size (points, chunks, estimated time) before it is started, or the field errors.
(function () {
  const form = document.getElementById("sweep-form");
  const out = document.getElementById("sweep-size");
  if (!form || !out) return;
  let timer = null;
  let asked = 0;
  async function size() {
    const mine = ++asked;
    try {
      const r = await fetch(out.dataset.url, { method: "POST", body: new FormData(form), credentials: "same-origin" });
      const d = await r.json();
      if (mine !== asked) return;  // a later edit's answer wins
      if (r.ok) {
        out.textContent = `Size: ${d.points.toLocaleString()} points in ${d.chunks.toLocaleString()} chunk(s), about ` +
          `${Math.round(d.estimated_s).toLocaleString()} s — ${d.derivation}`;
        out.classList.remove("error");
      } else {
        out.textContent = "Not startable: " + Object.entries(d.errors || {}).map(([k, v]) => `${k}: ${[].concat(v).join(" ")}`).join("; ");
        out.classList.add("error");
      }
    } catch (e) { out.textContent = "Size: not available right now"; }
  }
  form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(size, 300); });
  size();
})();
