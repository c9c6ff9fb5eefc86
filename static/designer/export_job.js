// Poll a background export's progress; once it is done, reload so the page offers the download.
(function () {
  const text = document.getElementById("progress-text");
  if (!text) return;
  const url = text.dataset.url;
  const status = text.dataset.status;
  if (status !== "pending" && status !== "running") return;
  async function poll() {
    try {
      const r = await fetch(url, { credentials: "same-origin" });
      const p = await r.json();
      document.getElementById("progress-bar").style.width = (100 * p.fraction_done).toFixed(1) + "%";
      document.getElementById("progress-status").textContent = p.status;
      document.getElementById("progress-stage").textContent = p.stage || "queued";
      document.getElementById("progress-elapsed").textContent = p.elapsed_s;
      if (p.status !== "pending" && p.status !== "running") { window.location.reload(); return; }
    } catch (e) { /* keep polling */ }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
