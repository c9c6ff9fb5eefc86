// The workload's job classes as an editable table over the wl_classes text field (one class per line,
// comma-separated: name, share %, min GPUs, max GPUs, granularity, min h, max h, SLA[, tenant, comm, duration]).
// The text stays the value the form sends; the table writes it. Without JavaScript the text is edited directly.
(function () {
  const text = document.querySelector("textarea[data-field=wl_classes]");
  if (!text) return;
  const COLS = [
    ["name", "Class", "text"], ["share_pct", "Share %", "number"], ["min_gpus", "Min GPUs", "number"],
    ["max_gpus", "Max GPUs", "number"], ["granularity_gpus", "Granularity", "number"],
    ["min_hours", "Min h", "number"], ["max_hours", "Max h", "number"], ["sla", "SLA", "sla"],
    ["tenant", "Tenant", "text"], ["comm_fraction", "All-to-all share", "number"], ["duration", "Duration", "duration"],
  ];
  const SEED = "pretraining, 40, 512, 1024, 64, 168, 2160, critical\n" +
    "fine-tuning, 30, 64, 256, 8, 24, 336, queued\n" +
    "small-model, 20, 8, 64, 8, 24, 168, queued\n" +
    "hyper-parameter search, 10, 32, 128, 8, 24, 72, queued";
  const CHOICES = { sla: ["critical", "queued", "best_effort"], duration: ["log_uniform", "uniform", "exponential"] };
  const wrap = document.createElement("div");
  wrap.className = "workload-editor";
  text.parentNode.insertBefore(wrap, text.nextSibling);
  const table = document.createElement("table");
  table.className = "grid workload-table";
  table.id = "workload-table";
  table.innerHTML = "<thead><tr>" + COLS.map((c) => "<th>" + c[1] + "</th>").join("") + "<th></th></tr></thead><tbody></tbody>";
  const body = table.tBodies[0];
  const total = document.createElement("p");
  total.className = "help";
  total.id = "workload-total";
  const buttons = document.createElement("p");
  buttons.innerHTML = '<button type="button" id="workload-add">Add a class</button> ' +
    '<button type="button" id="workload-seed">The seed\'s Table 14-24</button> ' +
    '<button type="button" id="workload-clear">None (= the seed\'s table)</button> ' +
    '<label class="inline"><input type="checkbox" id="workload-as-text"> edit as text</label>';
  wrap.append(table, total, buttons);
  text.hidden = true;

  function parse(value) {
    return value.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"))
      .map((l) => l.split(",").map((c) => c.trim()));
  }
  function cellInput(kind, value) {
    let el;
    if (CHOICES[kind]) {
      el = document.createElement("select");
      for (const v of CHOICES[kind]) el.add(new Option(v, v));
      el.value = value || CHOICES[kind][kind === "sla" ? 1 : 0];
    } else {
      el = document.createElement("input");
      el.type = "text";
      if (kind === "number") el.inputMode = "decimal";
      el.value = value || "";
    }
    return el;
  }
  function addRow(cells) {
    const tr = body.insertRow();
    COLS.forEach(([, , kind], i) => tr.insertCell().appendChild(cellInput(kind, cells[i])));
    const del = document.createElement("button");
    del.type = "button"; del.textContent = "✕"; del.title = "Remove this class"; del.className = "link";
    del.addEventListener("click", () => { tr.remove(); write(); });
    tr.insertCell().appendChild(del);
  }
  function render() {
    body.innerHTML = "";
    parse(text.value).forEach(addRow);
    showTotal();
  }
  function write() {
    const lines = [...body.rows].map((tr) => {
      const cells = [...tr.querySelectorAll("input, select")].map((el) => el.value.trim());
      const DEFAULTS = { 8: "", 9: "0", 10: "log_uniform" };  // tenant, all-to-all share, duration
      while (cells.length > 8 && cells[cells.length - 1] === DEFAULTS[cells.length - 1]) cells.pop();
      return cells.join(", ");
    });
    text.value = lines.join("\n");
    showTotal();
    text.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function showTotal() {
    const rows = parse(text.value);
    if (!rows.length) { total.textContent = "No classes: the simulation uses the seed's Table 14-24."; return; }
    const sum = rows.reduce((s, r) => s + (parseFloat(r[1]) || 0), 0);
    total.textContent = rows.length + " class(es); shares add up to " + (+sum.toFixed(6)) + " %" + (Math.abs(sum - 100) > 1e-9 ? " — they must add up to 100 %" : "");
  }
  body.addEventListener("input", write);
  body.addEventListener("change", write);
  document.getElementById("workload-add").addEventListener("click", () => { addRow(["", "", "", "", "8", "", "", "queued"]); });
  document.getElementById("workload-seed").addEventListener("click", () => { text.value = SEED; render(); write(); });
  document.getElementById("workload-clear").addEventListener("click", () => { text.value = ""; render(); write(); });
  document.getElementById("workload-as-text").addEventListener("change", (e) => {
    text.hidden = !e.target.checked; table.hidden = e.target.checked;
    if (!e.target.checked) render();
  });
  text.addEventListener("change", render);
  render();
})();
