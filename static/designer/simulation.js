// Poll a simulation run's progress; reload once it finishes so the report and charts show.
(function () {
  const text = document.getElementById("progress-text");
  if (!text) return;
  const status = text.dataset.status;
  if (status !== "pending" && status !== "running") return;
  async function poll() {
    try {
      const r = await fetch(text.dataset.url, { credentials: "same-origin" });
      const p = await r.json();
      const pct = 100 * p.fraction_done;
      document.getElementById("progress-bar").style.width = pct.toFixed(1) + "%";
      document.getElementById("progress-pct").textContent = pct.toFixed(0);
      document.getElementById("progress-status").textContent = p.status;
      document.getElementById("progress-elapsed").textContent = p.elapsed_s;
      const eta = document.getElementById("progress-eta");
      if (eta) eta.textContent = p.eta_s === null ? "—" : `${Math.round(p.eta_s).toLocaleString()} s`;
      if (p.status !== "pending" && p.status !== "running") { window.location.reload(); return; }
    } catch (e) { /* keep polling */ }
    setTimeout(poll, 700);
  }
  setTimeout(poll, 500);
})();
