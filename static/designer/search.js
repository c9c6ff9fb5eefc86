// A design search page: poll progress (reload when it finishes); clicking a chart point picks its candidate.
(function () {
  const text = document.getElementById("progress-text");
  const status = text ? text.dataset.status : "";
  async function poll() {
    try {
      const r = await fetch(text.dataset.url, { credentials: "same-origin" });
      const p = await r.json();
      document.getElementById("progress-bar").style.width = (100 * p.fraction_done).toFixed(1) + "%";
      document.getElementById("progress-status").textContent = p.status;
      document.getElementById("progress-done").textContent = p.done_candidates.toLocaleString();
      document.getElementById("progress-feasible").textContent = p.feasible_candidates.toLocaleString();
      document.getElementById("progress-rate").textContent = p.candidates_per_s.toLocaleString();
      document.getElementById("progress-eta").textContent = p.eta_s === null ? "—" : `${Math.round(p.eta_s).toLocaleString()} s`;
      if (p.status !== "pending" && p.status !== "running") { window.location.reload(); return; }
    } catch (e) { /* keep polling */ }
    setTimeout(poll, 1000);
  }
  if (text && (status === "pending" || status === "running")) setTimeout(poll, 1000);

  function pick(index) {
    const box = document.querySelector(`#cand-${index} input[type=checkbox]`);
    if (box) { box.checked = !box.checked; box.closest("tr").scrollIntoView({ block: "center" }); return; }
    const input = document.getElementById("picked");
    if (input) input.value = String(index);  // not in the table's top rows: pick it by index
  }
  window.addEventListener("load", function () {
    for (const id of ["chart-front", "chart-allreduce"]) {
      const el = document.getElementById(id);
      if (el && el.on) el.on("plotly_click", (ev) => { if (ev.points.length) pick(ev.points[0].customdata[0]); });
    }
  });
})();
