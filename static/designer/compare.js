(function () {
  const fig = JSON.parse(document.getElementById("compare-chart").textContent);
  Plotly.newPlot("chart-compare", fig.data, fig.layout, { responsive: true, displaylogo: false });
  const toggle = document.getElementById("only-diffs");
  toggle.addEventListener("change", () => {
    document.querySelectorAll("#compare-table tr.same").forEach((tr) => {
      tr.style.display = toggle.checked ? "none" : "";
    });
  });
})();
