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
